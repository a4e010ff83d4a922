import { expect } from 'vitest';
import { isPage, type PageRecord } from '../../src/model/record.js';

/** Every field of DESIGN.md's PageRecord table. */
export const RECORD_FIELDS = [
  'url',
  'requestedUrl',
  'finalUrl',
  'redirectChain',
  'status',
  'contentType',
  'title',
  'depth',
  'referrer',
  'links',
  'linkDetails',
  'externalLinks',
  'settled',
  'timings',
  'consoleErrors',
  'pageErrors',
  'failedRequests',
  'dialogs',
  'screenshot',
  'attempts',
  'soft404',
  'soft404Reason',
  'error',
  'redirect',
  'skipped',
] as const;

const LINK_SOURCES = ['anchor', 'shadow', 'frame', 'frame-src', 'popup', 'refresh', 'click', 'scroll', 'sitemap'];
const SKIP_REASONS = ['robots', 'scope', 'budget', 'non-html', 'trap', 'duplicate', 'logout'];
const DIALOG_TYPES = ['alert', 'confirm', 'prompt', 'beforeunload'];
const TIMING_KEYS = ['ttfb', 'domContentLoaded', 'load', 'settledMs', 'lastChangeMs', 'serverWaitMs', 'total'];
const SOFT404_REASONS = ['fingerprint', 'not-found-heading', 'not-found-title'];

const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrOrNull = (v: unknown): boolean => v === null || typeof v === 'string';
const isNumOrNull = (v: unknown): boolean => v === null || (typeof v === 'number' && Number.isFinite(v));
const isIntOrNull = (v: unknown): boolean => v === null || Number.isInteger(v);
const isAbsHttp = (v: unknown): boolean => isStr(v) && /^https?:\/\//.test(v);

/**
 * Assert that `r` has every field of the PageRecord table with the type DESIGN.md gives it.
 * Returns a list of problems (empty when the record is well formed), so a test can report every
 * bad record at once.
 */
export function recordProblems(r: unknown): string[] {
  const p: string[] = [];
  if (typeof r !== 'object' || r === null) return ['not an object'];
  const o = r as Record<string, unknown>;
  for (const f of RECORD_FIELDS) if (!(f in o)) p.push(`missing field ${f}`);
  if (!isAbsHttp(o.url)) p.push(`url not an absolute http(s) string: ${String(o.url)}`);
  if (!isAbsHttp(o.requestedUrl)) p.push(`requestedUrl not an absolute http(s) string: ${String(o.requestedUrl)}`);
  if (!(o.finalUrl === null || isAbsHttp(o.finalUrl))) p.push('finalUrl not string|null');
  if (!Array.isArray(o.redirectChain)) p.push('redirectChain not an array');
  else
    for (const h of o.redirectChain as unknown[]) {
      const hop = h as Record<string, unknown>;
      if (!isStr(hop?.url) || !isIntOrNull(hop?.status) || !(hop?.kind === 'http' || hop?.kind === 'client')) p.push(`bad redirect hop ${JSON.stringify(h)}`);
      if (hop?.kind === 'client' && hop.status !== null) p.push('client hop with a status');
    }
  if (!isIntOrNull(o.status)) p.push('status not integer|null');
  if (!isStrOrNull(o.contentType)) p.push('contentType not string|null');
  if (!isStrOrNull(o.title)) p.push('title not string|null');
  if (!(Number.isInteger(o.depth) && (o.depth as number) >= 0)) p.push('depth not a non-negative integer');
  if (!isStrOrNull(o.referrer)) p.push('referrer not string|null');
  if (!(Array.isArray(o.links) && o.links.every(isAbsHttp))) p.push('links not string[] of absolute URLs');
  if (!Array.isArray(o.linkDetails)) p.push('linkDetails not an array');
  else
    for (const d of o.linkDetails as unknown[]) {
      const ld = d as Record<string, unknown>;
      if (!isStr(ld?.url) || !isStr(ld?.text) || !LINK_SOURCES.includes(ld?.source as string)) p.push(`bad linkDetail ${JSON.stringify(d)}`);
    }
  if (!(Array.isArray(o.externalLinks) && o.externalLinks.every(isAbsHttp))) p.push('externalLinks not string[]');
  if (typeof o.settled !== 'boolean') p.push('settled not boolean');
  const t = o.timings as Record<string, unknown> | null;
  if (typeof t !== 'object' || t === null) p.push('timings not an object');
  else for (const k of TIMING_KEYS) if (!(k in t) || !isNumOrNull(t[k])) p.push(`timings.${k} not number|null`);
  for (const k of ['consoleErrors', 'pageErrors'] as const) {
    if (!(Array.isArray(o[k]) && (o[k] as unknown[]).every(isStr))) p.push(`${k} not string[]`);
  }
  if (!Array.isArray(o.failedRequests)) p.push('failedRequests not an array');
  else
    for (const f of o.failedRequests as unknown[]) {
      const fr = f as Record<string, unknown>;
      if (!isStr(fr?.url) || !isIntOrNull(fr?.status) || !isStrOrNull(fr?.failure) || !isStr(fr?.resourceType)) p.push(`bad failedRequest ${JSON.stringify(f)}`);
    }
  if (!Array.isArray(o.dialogs) || o.dialogs.length > 10) p.push('dialogs not an array of at most 10');
  else
    for (const d of o.dialogs as unknown[]) {
      const dr = d as Record<string, unknown>;
      if (!DIALOG_TYPES.includes(dr?.type as string) || !isStr(dr?.message)) p.push(`bad dialog ${JSON.stringify(d)}`);
    }
  if (!isStrOrNull(o.screenshot)) p.push('screenshot not string|null');
  if (!(Number.isInteger(o.attempts) && (o.attempts as number) >= 0)) p.push('attempts not a non-negative integer');
  if (typeof o.soft404 !== 'boolean') p.push('soft404 not boolean');
  if (o.soft404 === true ? !SOFT404_REASONS.includes(o.soft404Reason as string) : o.soft404Reason !== null) p.push(`soft404Reason ${String(o.soft404Reason)} with soft404 ${String(o.soft404)}`);
  if (o.error !== null) {
    const e = o.error as Record<string, unknown>;
    if (typeof e !== 'object' || !isStr(e.code) || !isStr(e.message)) p.push('error not {code,message}|null');
  }
  if (!(o.skipped === null || SKIP_REASONS.includes(o.skipped as string))) p.push(`skipped not a known reason|null: ${String(o.skipped)}`);
  if (typeof o.redirect !== 'boolean') p.push('redirect not boolean');
  if (o.redirect === true) {
    // A redirect record: where the URL forwards to, and nothing of a page.
    if (!isAbsHttp(o.finalUrl) || !(o.redirectChain as unknown[]).length) p.push('redirect record without finalUrl or chain');
    if (o.title !== null || (o.links as unknown[]).length || (o.linkDetails as unknown[]).length) p.push('redirect record with a title or links');
    if (!(o.skipped === null || o.skipped === 'scope' || o.skipped === 'robots')) p.push(`redirect record skipped for ${String(o.skipped)}`);
  }

  // Consistency between fields that DESIGN.md ties together.
  if (o.skipped === null) {
    // A visited page: one navigation, something loaded or an error saying why not.
    if (o.attempts !== 1) p.push(`visited page with attempts ${String(o.attempts)}`);
    if (o.status === null && o.error === null) p.push('visited page with neither status nor error');
    if (o.status !== null && (!isAbsHttp(o.finalUrl) || typeof (t?.total) !== 'number')) p.push('page with a status but no finalUrl or timings.total');
  } else if (o.skipped !== 'non-html' && o.skipped !== 'scope' && o.redirect !== true) {
    // Never visited: nothing loaded, no navigation made.
    if (o.finalUrl !== null || o.status !== null || o.attempts !== 0) p.push(`skipped (${String(o.skipped)}) record that looks visited`);
    if ((o.links as unknown[]).length || (o.linkDetails as unknown[]).length) p.push('skipped record with links');
  }
  return p;
}

/** Assert every record is well formed (all problems listed in one failure). */
export function expectWellFormed(records: readonly PageRecord[]): void {
  const bad = records.map((r) => ({ url: r.url, problems: recordProblems(r) })).filter((x) => x.problems.length > 0);
  expect(bad).toEqual([]);
}

/** Pathname (plus search) of an absolute URL. */
export function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/** Collect every record of an async iterable. */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of it) out.push(r);
  return out;
}

/** Sorted copy. */
export function sorted<T>(xs: Iterable<T>): T[] {
  return [...xs].sort();
}

/** Records that are pages (DESIGN.md: `skipped: null`, not a redirect record). */
export function pagesOf(records: readonly PageRecord[]): PageRecord[] {
  return records.filter(isPage);
}

/** Redirect records (in scope: `skipped: null`, `redirect: true`). */
export function redirectsOf(records: readonly PageRecord[]): PageRecord[] {
  return records.filter((r) => r.redirect && r.skipped === null);
}

/** A record's linkDetails reduced to the fields DESIGN.md names (url, text, source). */
export function detailsOf(r: PageRecord): { url: string; text: string; source: string }[] {
  return r.linkDetails.map(({ url, text, source }) => ({ url, text, source }));
}
