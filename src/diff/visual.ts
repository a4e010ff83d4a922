/**
 * The visual part of a diff: each page's screenshot in the new crawl compared with the
 * baseline's (see `compareImages`), a `visual-change` finding for pages whose changed-pixel
 * ratio is above the threshold, and a diff image for each of them.
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { isPage } from '../model/record.js';
import { RULES } from '../report/audit.js';
import { DEFAULT_VISUAL_THRESHOLD } from './defaults.js';
import { compareImages } from './image-diff.js';
import type { RecordSource } from './source.js';
import type { Finding, VisualChange, VisualDiff } from './types.js';

/** Screenshot files listed in {@link VisualDiff.missingFiles}; the rest are counted in `missing`. */
export const MAX_MISSING_LISTED = 5;

export { DEFAULT_VISUAL_THRESHOLD };
export { parseVisualThreshold } from './visual-threshold.js';

/** Where each side's screenshots are and how to judge them. */
export interface VisualOptions {
  /** The baseline's screenshots folder (its records' `screenshot` names are inside). */
  oldDir: string;
  /** The new crawl's screenshots folder. */
  newDir: string;
  /** Changed-pixel ratio above which a page changed (0.001 = 0.1 %). @default 0.001 */
  threshold?: number;
  /** Folder to write one diff PNG per changed page into (created), or `null` for none. */
  diffDir?: string | null;
}

/** Screenshot file names of a crawl's pages, by canonical URL. */
export async function shotsOf(source: RecordSource): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const r of source.records()) {
    if (isPage(r) && r.screenshot && isShotName(r.screenshot)) out.set(r.url, r.screenshot);
    else out.delete(r.url);
  }
  return out;
}

/**
 * `true` for a screenshot name as spacrawl writes them: a file name inside the screenshots
 * folder, never a path. A record edited to name `../x.png` or `/etc/x` would otherwise make the
 * diff read outside that folder and write its diff image outside `--visual-dir`; its page is
 * compared as one without a screenshot.
 */
export function isShotName(name: string): boolean {
  return name !== '.' && name !== '..' && !/[\\/\0]/.test(name) && path.basename(name) === name;
}

/** `1.93 % of pixels changed (19,800 of 1,024,000)`. */
export function visualMessage(c: Pick<VisualChange, 'ratio' | 'changedPixels' | 'width' | 'height' | 'sizeChanged'>): string {
  const pct = (c.ratio * 100).toFixed(2);
  return `${pct} % of pixels changed (${c.changedPixels.toLocaleString('en-US')} of ${(c.width * c.height).toLocaleString('en-US')})${c.sizeChanged ? ', and the page size' : ''}`;
}

/**
 * Compare the screenshots of the pages both crawls shot. A page whose ratio of changed pixels
 * is above `threshold` is a {@link VisualChange} (largest ratio first); its diff image is
 * written to `diffDir` under the new screenshot's name. Files named by a record but missing
 * on disk (or not PNGs) are counted in `missing` and skipped.
 */
export async function diffScreenshots(older: RecordSource, newer: RecordSource, opts: VisualOptions): Promise<VisualDiff> {
  return compareShots(await shotsOf(older), await shotsOf(newer), opts);
}

/** {@link diffScreenshots} over the screenshot names of each side (see {@link shotsOf}). */
export function compareShots(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>, opts: VisualOptions): VisualDiff {
  const threshold = opts.threshold ?? DEFAULT_VISUAL_THRESHOLD;
  const changes: VisualChange[] = [];
  let compared = 0;
  let missing = 0;
  const missingFiles: string[] = [];
  if (opts.diffDir) fs.mkdirSync(opts.diffDir, { recursive: true });
  for (const [url, newName] of b) {
    const oldName = a.get(url);
    if (!oldName) continue;
    const oldFile = path.join(opts.oldDir, oldName);
    const newFile = path.join(opts.newDir, newName);
    let c: ReturnType<typeof compareImages>;
    try {
      c = compareImages(oldFile, newFile, opts.diffDir ? threshold : null);
    } catch {
      missing++;
      if (missingFiles.length < MAX_MISSING_LISTED) missingFiles.push(fs.existsSync(oldFile) ? newFile : oldFile);
      continue;
    }
    compared++;
    if (c.ratio <= threshold) continue;
    let diff: string | null = null;
    if (opts.diffDir && c.diffPng) {
      diff = path.join(opts.diffDir, newName);
      fs.writeFileSync(diff, c.diffPng);
    }
    const { diffPng: _png, ...cmp } = c;
    changes.push({ url, ...cmp, old: oldFile, new: newFile, diff });
  }
  changes.sort((x, y) => y.ratio - x.ratio || x.url.localeCompare(y.url));
  return { threshold, compared, missing, missingFiles, changes };
}

/** The `visual-change` findings of a visual diff: one per changed page, all new. */
export function visualFindings(v: VisualDiff): Finding[] {
  return v.changes.map((c) => ({
    rule: 'visual-change',
    severity: RULES['visual-change'].severity,
    url: c.url,
    page: c.url,
    text: '',
    message: visualMessage(c),
    count: 1,
    ignored: false,
  }));
}
