/**
 * The diff's defaults, in a module that imports nothing, so that the CLI's option table
 * (`src/cli/cli-options.ts`) can show them in `--help` without loading the diff and its image
 * comparison.
 * @module
 */

/** Default of `DiffOptions.thresholdMs` (`diff --threshold-ms`). */
export const DEFAULT_THRESHOLD_MS = 1000;
/** Default of `DiffOptions.thresholdRatio` (`diff --threshold-percent` / 100). */
export const DEFAULT_THRESHOLD_RATIO = 0.5;

/** Default `--fail-on` of `diff`: the crawl command's default. */
export const DEFAULT_DIFF_FAIL_ON: readonly string[] = ['broken-link', 'server-error'];

/** Default `--visual-threshold`: changed pixels above 0.1 % of a page's make a `visual-change`. */
export const DEFAULT_VISUAL_THRESHOLD = 0.001;
