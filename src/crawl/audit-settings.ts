/**
 * How the crawl's audit options (`--a11y`, `--vitals`, `--vitals-concurrency`,
 * `--vitals-throttle`) become the visit's settings: what each visit is asked, the init script
 * every browser context needs, the one measure gate of the crawl, and the note the summary
 * keeps about vitals measured under contention.
 * @module
 */
import os from 'node:os';
import type { A11yOptions } from '../browser/a11y.js';
import { MeasureGate } from '../browser/measure-gate.js';
import type { VitalsOptions } from '../browser/visit.js';
import { vitalsInitScript } from '../browser/vitals-script.js';
import type { ResolvedCrawlOptions } from './options.js';

/** The audit settings of one crawl. */
export interface AuditSettings {
  /** Each visit's accessibility check, or `null`. */
  a11y: A11yOptions | null;
  /** Each visit's vitals measurement, or `null`. */
  vitals: VitalsOptions | null;
  /** The crawl's measure gate (`--vitals-concurrency`), shared by every visit and probe, or `null`. */
  measureGate: MeasureGate | null;
  /** Init scripts for every browser context (`web-vitals` with `--vitals`). */
  initScripts: string[];
  /** What the summary should say about how the vitals were measured, or `null`. */
  note: string | null;
}

/**
 * The audit settings of a crawl with options `o`.
 * @param cores - CPU cores of the machine, for the note (default: `os.availableParallelism()`)
 */
export function auditSettings(o: ResolvedCrawlOptions, cores = os.availableParallelism()): AuditSettings {
  const vitals = o.vitals ? { throttle: o.vitalsThrottle } : null;
  const alone = o.vitals && o.vitalsConcurrency !== null;
  let note: string | null = null;
  // No more pages are ever in flight than the crawl may visit.
  const inFlight = Math.min(o.concurrency, o.maxPages);
  if (o.vitals && !alone && inFlight > 1) {
    note = `vitals were measured with up to ${inFlight} pages in flight on ${cores} CPU core${cores === 1 ? '' : 's'}: they include the crawler's own load, not only the site's (--vitals-concurrency 1 measures each page alone)`;
  }
  return {
    a11y: o.a11y ? { tags: o.a11yTags } : null,
    vitals,
    measureGate: alone ? new MeasureGate(o.vitalsConcurrency!) : null,
    initScripts: o.vitals ? [vitalsInitScript()] : [],
    note,
  };
}
