/**
 * The shape of one option's declaration, shared by the crawl's options (`option-table.ts`) and
 * the CLI's own flags (`src/cli/cli-options.ts`). From a declaration come the oclif flag
 * (`src/cli/flags.ts`), the library default (`resolveOptions`), the `--config` file key and
 * docs/flags.md; `test/unit/options.test.ts` checks what is written by hand elsewhere
 * (TSDoc `@default`, README and docs/) against it.
 * @module
 */
import { MAX_TIMER_MS } from '../util/wait.js';

/** The docs/flags.md section an option is listed under (rows are ordered by topic, then as declared). */
export type OptionTopic =
  | 'budget'
  | 'urls'
  | 'robots'
  | 'discovery'
  | 'pages'
  | 'politeness'
  | 'checks'
  | 'output'
  | 'audit'
  | 'store'
  | 'browser'
  | 'terminal';

/** Order of {@link OptionTopic}s in docs/flags.md. */
export const TOPIC_ORDER: readonly OptionTopic[] = ['budget', 'urls', 'robots', 'discovery', 'pages', 'politeness', 'checks', 'output', 'audit', 'store', 'browser', 'terminal'];

/**
 * What a value is:
 * - `integer`: a whole number `>= min` (oclif `Flags.integer`);
 * - `number`: a positive number (`rate`, `max-time`); typed as a string flag and parsed by the
 *   command unless `flagKind` says `integer`;
 * - `boolean`: on or off (`--[no-]x` when `allowNo`);
 * - `string`: text, or one of `choices`;
 * - `list`: a repeatable string flag.
 */
export type OptionKind = 'integer' | 'number' | 'boolean' | 'string' | 'list';

/** Unit of a numeric option's value. */
export type OptionUnit = 'ms' | 's';

/** `Infinity` as a declared default ("no limit"), typed apart from other numbers: it never becomes a flag default. */
export type NoLimit = number & { readonly noLimit: true };

/** The declared default of an option without a limit (`maxDepth`). */
export const NO_LIMIT = Infinity as NoLimit;

/** One option, declared once. */
export interface OptionSpec {
  /** Flag name without dashes (`max-depth`), or `null` for a library-only option. */
  readonly flag: string | null;
  /** Name in error messages of a library-only option (`quiet` for `quietMs`); default: `flag`. */
  readonly label?: string;
  readonly kind: OptionKind;
  /** Unit of the (library) value; the name says it too (`timeoutMs`, `maxTimeSeconds`). */
  readonly unit?: OptionUnit;
  /** Unit of the flag's value when it differs from `unit` (`--max-retry-after` is in seconds, `maxRetryAfterMs` in ms). */
  readonly flagUnit?: OptionUnit;
  /** How the flag is typed when unlike `kind` (`--max-time` is a whole number of seconds). */
  readonly flagKind?: 'integer';
  /**
   * What is used when the option is not given, in the value's `unit`. `null`: nothing (no
   * limit, no file, the browser's own …), `Infinity`: no limit; neither becomes a flag default.
   */
  readonly default: string | number | boolean | null | readonly string[] | Readonly<Record<string, unknown>>;
  /** Smallest accepted value (`integer` kind, and `flagKind: 'integer'`). */
  readonly min?: number;
  /** Largest accepted value (`integer` kind, and `flagKind: 'integer'`). */
  readonly max?: number;
  /** The accepted values of a `string` option. */
  readonly choices?: readonly string[];
  /** `--[no-]flag` is accepted (booleans). */
  readonly allowNo?: boolean;
  /** One-letter alias (`-q`). */
  readonly char?: 'q' | 'v';
  /** Flags that cannot be given with this one. */
  readonly exclusive?: readonly string[];
  /** The `--help` line. */
  readonly help: string;
  /** docs/flags.md only: the value's placeholder after the flag (`N`, `MS`, `FILE`); choices are listed instead. */
  readonly value?: string;
  /** docs/flags.md only: text appended to `help` in the meaning column (starts with its own punctuation). */
  readonly doc?: string;
  /** docs/flags.md and TSDoc `@default` when the default is not shown as a plain value (`none`, `1280x800`). */
  readonly defaultText?: string;
  /** docs/flags.md only: where the flag is listed. */
  readonly topic: OptionTopic;
}

/** True when `v` is a default that a flag can carry (a number, string or boolean; not `null`, `Infinity`, a list or an object). */
function isPlain(v: OptionSpec['default']): v is string | number | boolean {
  return (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string' || typeof v === 'boolean';
}

/**
 * The largest accepted value of an option, in the library's unit: its declared `max`, else for
 * a duration (`unit` `ms` or `s`) what a timer can hold ({@link MAX_TIMER_MS}); `undefined` for none.
 */
export function maxOf(spec: OptionSpec): number | undefined {
  if (spec.max !== undefined) return spec.max;
  if (spec.unit === 'ms') return MAX_TIMER_MS;
  if (spec.unit === 's') return Math.floor(MAX_TIMER_MS / 1000);
  return undefined;
}

/** {@link maxOf} in the flag's unit (seconds for a `flagUnit: 's'` option of `unit: 'ms'`). */
export function flagMaxOf(spec: OptionSpec): number | undefined {
  const max = maxOf(spec);
  return max !== undefined && spec.flagUnit === 's' && spec.unit === 'ms' ? Math.floor(max / 1000) : max;
}

/**
 * Convert a flag's value to the library's unit (seconds → ms for `flagUnit: 's'`, `unit: 'ms'`).
 * @example toLibraryUnit(CRAWL_OPTIONS.maxRetryAfterMs, 60) === 60_000
 */
export function toLibraryUnit(spec: OptionSpec, v: number): number {
  return spec.flagUnit === 's' && spec.unit === 'ms' ? v * 1000 : v;
}

/**
 * The flag's default, in the flag's unit: the declared default when it is a plain value,
 * else `undefined` (oclif then leaves the flag out when it is not given).
 */
export function flagDefaultOf(spec: OptionSpec): string | number | boolean | undefined {
  const v = spec.default;
  if (!isPlain(v)) return undefined;
  return typeof v === 'number' && spec.flagUnit === 's' && spec.unit === 'ms' ? v / 1000 : v;
}

/**
 * How a default reads in docs/flags.md (style `readme`) and in TSDoc `@default`: `defaultText` when declared, else
 * `on`/`off` (README) or `true`/`false` (TSDoc) for booleans, `none` for `null` and empty
 * lists, the number (`Infinity` is `none` in README), or the string (README: in backticks, TSDoc: quoted).
 */
export function defaultTextOf(spec: OptionSpec, style: 'readme' | 'tsdoc'): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  const v = style === 'readme' ? (flagDefaultOf(spec) ?? spec.default) : spec.default;
  if (v === null) return 'none';
  if (typeof v === 'boolean') return style === 'readme' ? (v ? 'on' : 'off') : String(v);
  if (typeof v === 'number') return v === Infinity ? (style === 'readme' ? 'none' : 'Infinity') : String(v);
  if (typeof v === 'string') return style === 'readme' ? `\`${v}\`` : `'${v}'`;
  return 'none'; // an empty list or map
}
