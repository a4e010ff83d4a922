/**
 * oclif flags made from the option declarations (`src/crawl/option-table.ts`,
 * `src/cli/cli-options.ts`): a flag's name, type, default (in the flag's unit), range, choices
 * and `--help` line all come from its declaration, so they cannot drift apart. A command may
 * give a flag its own help line and relationships ({@link FlagVariant}), never its own default.
 * @module
 */
import { Flags, type Interfaces } from '@oclif/core';
import { flagDefaultOf, flagMaxOf, type NoLimit, type NO_LIMIT, type OptionSpec } from '../crawl/option-spec.js';
import { CRAWL_OPTIONS as C } from '../crawl/option-table.js';
import { CLI_OPTIONS as X } from './cli-options.js';

/** What a command may say differently about a declared flag. */
export interface FlagVariant {
  /** Its own `--help` line (the declared one otherwise). */
  readonly help?: string;
  readonly required?: true;
  /** Exactly one of these flags must be given. */
  readonly exactlyOne?: readonly string[];
  /** These flags must be given with this one. */
  readonly dependsOn?: readonly string[];
}

/** A declaration with a flag name. */
type FlagSpec = OptionSpec & { readonly flag: string };

/**
 * True when the declared default becomes a flag default: a boolean, a string or a number, but
 * not {@link NO_LIMIT} (as {@link flagDefaultOf} decides at run time).
 */
type HasFlagDefault<S> = S extends { readonly default: infer D }
  ? [D] extends [NoLimit]
    ? false
    : [D] extends [boolean | string | number]
      ? true
      : false
  : false;

/** The oclif flag type of a declaration: what `this.parse()` then returns for it. */
export type FlagOf<S> = S extends { readonly kind: 'boolean' }
  ? Interfaces.BooleanFlag<boolean>
  : Interfaces.OptionFlag<FlagValue<S> | (Given<S> extends true ? never : undefined)>;

/** The parsed value of a non-boolean flag. */
type FlagValue<S> = S extends { readonly kind: 'list' }
  ? string[]
  : S extends { readonly kind: 'integer' } | { readonly flagKind: 'integer' }
    ? number
    : string;

/** True when the flag always has a value (a default, or required). */
type Given<S> = S extends { readonly required: true } ? true : HasFlagDefault<S>;

/** Each flag made by {@link flagOf}, with the declaration (and variant) it was made from. */
const DECLARED = new WeakMap<object, OptionSpec>();

/**
 * The oclif flag of one declaration (plus a command's variant).
 * @example flagOf(CRAWL_OPTIONS.concurrency) // Flags.integer({ description: 'pages in flight at once', default: 4, min: 1 })
 */
export function flagOf<const S extends FlagSpec & FlagVariant>(spec: S): FlagOf<S> {
  const description = spec.help;
  const relations = {
    ...(spec.required ? { required: true } : {}),
    ...(spec.exactlyOne ? { exactlyOne: [...spec.exactlyOne] } : {}),
    ...(spec.dependsOn ? { dependsOn: [...spec.dependsOn] } : {}),
  };
  const def = flagDefaultOf(spec);
  const withDefault = def === undefined ? {} : { default: def };
  let flag: unknown;
  if (spec.kind === 'boolean') {
    flag = Flags.boolean({
      ...(spec.char ? { char: spec.char } : {}),
      description,
      default: def === true,
      ...(spec.allowNo ? { allowNo: true } : {}),
      ...(spec.exclusive ? { exclusive: [...spec.exclusive] } : {}),
    });
  } else if (spec.kind === 'integer' || spec.flagKind === 'integer') {
    const max = flagMaxOf(spec);
    flag = Flags.integer({ description, ...withDefault, ...(spec.min !== undefined ? { min: spec.min } : {}), ...(max !== undefined ? { max } : {}), ...relations } as never);
  } else if (spec.kind === 'list') {
    flag = Flags.string({ description, multiple: true, multipleNonGreedy: true, ...relations } as never);
  } else {
    flag = Flags.string({ description, ...(spec.choices ? { options: [...spec.choices] } : {}), ...withDefault, ...relations } as never);
  }
  DECLARED.set(flag as object, spec);
  return flag as FlagOf<S>;
}

/**
 * The declaration a flag was made from, or `undefined` for a flag written by hand (which
 * `test/unit/options.test.ts` refuses).
 */
export function declarationOf(flag: unknown): OptionSpec | undefined {
  return typeof flag === 'object' && flag !== null ? DECLARED.get(flag) : undefined;
}

/**
 * A declaration with a command's own help line or relationships; the name, kind, unit and
 * default stay the declared ones.
 */
export function variant<const S extends FlagSpec, const V extends FlagVariant>(spec: S, v: V): Omit<S, 'help'> & V & { readonly help: string } {
  return { ...spec, ...v, help: v.help ?? spec.help };
}

/** Flags keyed by their declared names, in the given order (the order of `--help`'s usage line). */
export type FlagsOf<T extends readonly FlagSpec[]> = { [S in T[number] as S['flag']]: FlagOf<S> };

/** The oclif flags of several declarations, keyed by flag name. */
export function flagsOf<const T extends readonly (FlagSpec & FlagVariant)[]>(...specs: T): FlagsOf<T> {
  const out: Record<string, unknown> = {};
  for (const s of specs) {
    if (s.flag in out) throw new Error(`flag --${s.flag} declared twice`);
    out[s.flag] = flagOf(s);
  }
  return out as FlagsOf<T>;
}

/** Flags of `spacrawl crawl` (the order is `--help`'s usage line). */
export const crawlFlags = flagsOf(
  C.concurrency,
  C.maxDepth,
  C.maxPages,
  C.maxTimeSeconds,
  C.scope,
  X.out,
  C.screenshotsDir,
  C.screenshotMode,
  C.hide,
  C.visualMask,
  C.ignoreRobots,
  C.userAgent,
  C.timeoutMs,
  C.settleTimeoutMs,
  C.browserPath,
  C.proxy,
  C.click,
  C.clickLimit,
  C.clickExclude,
  C.clickRepeat,
  C.scroll,
  C.scrollLimit,
  C.soft404,
  C.dedupeContent,
  C.assets,
  C.hashRouteReuse,
  C.historyRouteReuse,
  C.include,
  C.exclude,
  C.hashRoutes,
  C.keepParams,
  C.stripParams,
  C.foldTrailingSlash,
  C.foldIndex,
  C.robotsAgent,
  C.followNofollow,
  C.sitemap,
  C.rate,
  C.perHostConcurrency,
  C.retries,
  C.maxRetryAfterMs,
  C.maxQueryVariants,
  C.recycleAfter,
  C.ignoreHttpsErrors,
  X.state,
  X.force,
  X.redis,
  X.crawlId,
  X.leaseTtlMs,
  X.redisRetryMs,
  X.reports,
  X.outputDir,
  X.failOn,
  X.baseline,
  X.mapOrigin,
  X.visualThresholdPercent,
  X.failOnWarnings,
  X.ignoreUrls,
  X.slowMs,
  C.storageState,
  C.login,
  C.loggedOut,
  C.headers,
  C.viewport,
  C.device,
  C.locale,
  X.config,
  X.quiet,
  X.verbose,
  X.progress,
  X.logFormat,
  X.metrics,
  X.metricsLingerMs,
  C.checkExternal,
  C.checkFragments,
  C.a11y,
  C.a11yTags,
  C.vitals,
  C.vitalsConcurrency,
  C.vitalsThrottle,
  X.budget,
);

/** What `this.parse()` gives for {@link crawlFlags} (plus oclif's `--json`). */
export type CrawlFlags = Interfaces.InferredFlags<typeof crawlFlags> & { json?: boolean | undefined };
