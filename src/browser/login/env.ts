/**
 * The environment as a login recipe reads it, and the error of a recipe that cannot be used.
 * @module
 */
import { UsageError } from '../../model/errors.js';

/** A login recipe that cannot be used (missing file, syntax, unknown step, missing environment variable). The CLI exits 2. */
export class LoginRecipeError extends UsageError {
  readonly code = 'bad-login';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LoginRecipeError';
  }
}

/**
 * The environment as a recipe sees it; every value read is kept as a secret. A Recorder flow's
 * `${env.NAME}` must be set ({@link LoginEnv.get} throws, and the flow's names are checked before
 * the crawl); a login module reads `env.NAME` as `undefined` when it is not set, so that it can
 * fall back (`env.APP_USER ?? 'ada'`): the module decides, and the names it read unset are kept
 * ({@link LoginEnv.unsetRead}) for the message of a login that then fails.
 */
export class LoginEnv {
  private readonly read = new Set<string>();
  private readonly unset = new Set<string>();

  /** @param source - the variables (default `process.env`) */
  constructor(private readonly source: Readonly<Record<string, string | undefined>> = process.env) {}

  /**
   * The value of `name`.
   * @throws LoginRecipeError when it is not set
   */
  get(name: string): string {
    const v = this.source[name];
    if (v === undefined) throw new LoginRecipeError(`the login needs the environment variable ${name}, which is not set`);
    this.read.add(v);
    return v;
  }

  /** `true` when `name` is set. */
  has(name: string): boolean {
    return this.source[name] !== undefined;
  }

  /** Every value read so far (the secrets). */
  values(): string[] {
    return [...this.read];
  }

  /**
   * The value of `name`, or `undefined` when it is not set (the name is then kept, see
   * {@link LoginEnv.unsetRead}).
   */
  peek(name: string): string | undefined {
    const v = this.source[name];
    if (v === undefined) this.unset.add(name);
    else this.read.add(v);
    return v;
  }

  /** Names read through {@link LoginEnv.peek} (a login module's `env.NAME`) that were not set, in the order first read. */
  unsetRead(): string[] {
    return [...this.unset];
  }

  /**
   * A read-only object view for login functions: `env.NAME` reads through {@link LoginEnv.peek},
   * so an unset variable is `undefined`, never an error.
   */
  view(): Readonly<Record<string, string | undefined>> {
    return new Proxy({} as Record<string, string | undefined>, {
      get: (_t, name) => (typeof name === 'string' ? this.peek(name) : undefined),
      has: (_t, name) => typeof name === 'string' && this.has(name),
      set: () => false,
      ownKeys: () => [],
    });
  }
}

