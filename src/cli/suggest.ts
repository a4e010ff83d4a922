/**
 * Helpers for oclif's unknown-flag errors; the "did you mean" distance lives in
 * `util/nearest-name.ts` (re-exported here).
 * @module
 */
export { expansionsOf, nearestName } from '../util/nearest-name.js';

/** The flags a oclif "Nonexistent flag(s)" error names, e.g. `['--concurency']`; empty for other errors. */
export function unknownFlagsIn(message: string): string[] {
  const m = /^Nonexistent flags?: (.+)$/m.exec(message);
  return m ? m[1]!.split(/,\s*/).map((f) => f.trim().split('=')[0]!).filter((f) => f.startsWith('-')) : [];
}
