/**
 * `crawl --baseline OLD` opened and checked before the crawl starts: not a file this crawl
 * writes, a crawl, and of the same site. Loads none of the diff itself (`baseline.ts` compares
 * after the crawl), so that a bad baseline answers at once; re-exported by `baseline.ts`.
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { DiffInputError } from './errors.js';
import { mapOriginHint } from './map-origin.js';
import { checkSameOrigins, originsOf, sourceSiteOrigins } from './side.js';
import { openRecordSource, type RecordSource } from './source.js';

/** What this crawl's records and reports are written to, to refuse a baseline that would be overwritten. */
export interface CrawlTargets {
  outputDir: string | null;
  outFile: string | null;
  stateFile: string | null;
}

/**
 * Open the baseline before the crawl starts, so that a bad one stops it with exit 2.
 * @throws DiffInputError when the baseline is missing or not a crawl (see `openRecordSource`),
 *   or is a file or folder this crawl writes (it would compare the crawl with itself)
 */
export async function openBaseline(input: string, targets: CrawlTargets): Promise<RecordSource> {
  const real = (p: string | null): string | null => {
    if (!p) return null;
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const b = real(input);
  const ours = [targets.outputDir, targets.outFile, targets.stateFile, targets.outputDir && path.join(targets.outputDir, 'pages.jsonl')].map(real);
  if (b && ours.includes(b)) throw new DiffInputError('bad-option', `--baseline ${input} is written by this crawl: copy the baseline elsewhere first`);
  try {
    return await openRecordSource(input);
  } catch (err) {
    // Name the flag, as every other file flag's message does.
    if (err instanceof DiffInputError) throw new DiffInputError(err.code, `--baseline ${err.message}`, { cause: err });
    throw err;
  }
}

/**
 * Refuse, before anything is crawled, a baseline of another site: one whose site origins (its
 * seeds' origins) share none with this crawl's seeds. The same check runs again on the records
 * after the crawl (`diffCrawls`).
 * @param source - the baseline, from {@link openBaseline} (read once here)
 * @param seeds - this crawl's seed URLs
 * @throws DiffInputError (`different-sites`), naming `--baseline` and this crawl
 */
export async function checkBaselineSite(source: RecordSource, seeds: readonly string[]): Promise<void> {
  if (seeds.length === 0) return; // a worker joining a shared crawl: its seeds are in the frontier
  const older = await sourceSiteOrigins(source);
  const newer = originsOf(seeds);
  checkSameOrigins(older, newer, [`--baseline ${source.label}`, 'this crawl'], `a baseline is an earlier crawl of the same site; ${mapOriginHint(older, newer, source.originMap)}`);
}
