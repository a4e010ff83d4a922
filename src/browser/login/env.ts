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
 * The environment as a recipe sees it: reading a variable that is not set is an error (a login
 * with an empty password would only fail later, less clearly), and every value read is kept as
 * a secret.
 */
export class LoginEnv {
  private readonly read = new Set<string>();

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

  /** A read-only object view for login functions: `env.NAME` reads through {@link LoginEnv.get}. */
  view(): Readonly<Record<string, string | undefined>> {
    return new Proxy({} as Record<string, string | undefined>, {
      get: (_t, name) => (typeof name === 'string' ? this.get(name) : undefined),
      has: (_t, name) => typeof name === 'string' && this.has(name),
      set: () => false,
      ownKeys: () => [],
    });
  }
}

