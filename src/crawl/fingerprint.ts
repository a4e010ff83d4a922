import { createHash } from 'node:crypto';

/**
 * Content fingerprints of rendered pages, for soft-404 detection and duplicate content.
 * Input is the visit's normalized text (title + visible text, lowercased, whitespace-collapsed).
 * @module
 */

/**
 * Words of `text` with the page's own path, its last path segment unless the path ends with
 * `/` (a not-found screen often names what was not found: "No package spacrawl-probe-x"), and
 * all digits removed (they vary on "not found" screens).
 */
function words(text: string, path: string): string[] {
  let t = text;
  if (path && path !== '/') {
    t = t.split(path.toLowerCase()).join(' ');
    const last = path.endsWith('/') ? '' : lastSegment(path);
    if (last.length >= 3) t = t.replace(new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(last)}(?=$|[^\\p{L}\\p{N}])`, 'gu'), '$1 ');
  }
  return t
    .replace(/\d+/g, ' ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The last non-empty segment of a URL path, percent-decoded when possible, lowercased. */
function lastSegment(path: string): string {
  const seg = path.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(seg).toLowerCase();
  } catch {
    return seg.toLowerCase();
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Set of 3-word shingles (single words when the text has fewer than 3). */
export function shingles(text: string, path = ''): Set<string> {
  const w = words(text, path);
  if (w.length < 3) return new Set(w);
  const out = new Set<string>();
  for (let i = 0; i + 3 <= w.length; i++) out.add(`${w[i]} ${w[i + 1]} ${w[i + 2]}`);
  return out;
}

/** Jaccard similarity of two shingle sets, 0..1 (two empty sets are 1). */
export function similarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Exact-content hash of a rendered page (SHA-1 of its normalized text), for duplicate detection. */
export function contentHash(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
