/**
 * Words shared by the diff's formats and its terminal summary: statuses, timings, counts.
 * @module
 */
import type { CrawlDiff, Finding, StatusValue, TimingChange } from '../types.js';

/** `1 page`, `2 pages`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** What a URL answered: `200`, `301 (redirect)`, `ERR timeout`, `no response`. */
export function statusText(v: StatusValue): string {
  if (v.status === null) return v.error ? `ERR ${v.error}` : 'no response';
  return v.redirect ? `${v.status} (redirect)` : String(v.status);
}

/** A timing or vital value with its unit: `1500 ms`, `0.25` for `vitals.cls`, bytes for `vitals.transferBytes`, a count for `vitals.requests`. */
export function timingValue(metric: string, n: number): string {
  const m = metric.toLowerCase();
  if (m === 'vitals.cls') return String(Math.round(n * 1000) / 1000);
  if (m === 'vitals.transferbytes') return `${Math.round(n)} bytes`;
  if (m === 'vitals.requests') return `${Math.round(n)} requests`;
  return `${Math.round(n)} ms`;
}

/** `total 300 ms → 1800 ms (+1500 ms)`. */
export function timingText(t: TimingChange): string {
  const sign = t.delta > 0 ? '+' : '−';
  return `${t.metric} ${timingValue(t.metric, t.old)} → ${timingValue(t.metric, t.new)} (${sign}${timingValue(t.metric, Math.abs(t.delta))})`;
}

/** One kind of URL change with its count: `label` is the plural (table headers), `one` the singular. */
export interface ChangeCount {
  label: string;
  one: string;
  count: number;
}

/** One count per kind of URL change, in report order (visual changes when screenshots were compared). */
export function changeCounts(d: CrawlDiff): ChangeCount[] {
  return [
    { label: 'pages added', one: 'page added', count: d.pages.added.length },
    { label: 'pages removed', one: 'page removed', count: d.pages.removed.length },
    { label: 'status changes', one: 'status change', count: d.statusChanges.length },
    { label: 'title changes', one: 'title change', count: d.titleChanges.length },
    { label: 'redirect changes', one: 'redirect change', count: d.redirectChanges.length },
    { label: 'new soft 404s', one: 'new soft 404', count: d.soft404s.length },
    { label: 'pages that lost links', one: 'page that lost links', count: d.lostLinks.length },
    { label: 'timing changes', one: 'timing change', count: d.timingChanges.length },
    // Only when screenshots were compared: a diff without them says nothing about pixels.
    ...(d.visual ? [{ label: 'visual changes', one: 'visual change', count: d.visual.changes.length }] : []),
  ];
}

/** `1 page added, 2 status changes, …`: every kind of URL change counted, in report order. */
export function changeCountsText(d: CrawlDiff): string {
  return changeCounts(d)
    .map((c) => plural(c.count, c.one, c.label))
    .join(', ');
}

/** The `--fail-on` setting as it is typed: `broken-link,server-error`, or `none`. */
export function failOnText(failOn: readonly string[]): string {
  return failOn.length === 0 || failOn.includes('none') ? 'none' : failOn.join(',');
}

/** A message on one line: whitespace collapsed, at most `max` characters. */
export function oneLine(s: string, max = 300): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** `broken-link 2, js-error 1`: findings counted by rule, in the list's order. */
export function countByRule(list: readonly Finding[]): string {
  const counts = new Map<string, number>();
  for (const f of list) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  return [...counts].map(([rule, n]) => `${rule} ${n}`).join(', ');
}

/** Where a finding shows, in words: `` for a page rule, ` on PAGE ("text")` for a link rule. */
export function whereText(f: Finding, short: (u: string) => string = (u) => u): string {
  if (f.page === f.url) return '';
  if (f.page === null) return ' (no crawled page links to it)';
  return ` on ${short(f.page)}${f.text ? ` ("${f.text}")` : ''}`;
}

/**
 * A URL shortened for a line of text: its path, query and fragment when it is on `origin`, else
 * the whole URL.
 */
export function shortUrl(url: string, origin: string | null): string {
  if (!origin) return url;
  try {
    const u = new URL(url);
    if (u.origin === origin) return `${u.pathname}${u.search}${u.hash}`;
  } catch {
    // not an absolute URL: as it is
  }
  return url;
}

/** The origin URLs of a diff are shortened against: the new crawl's first seed's, else the old one's. */
export function diffOrigin(d: CrawlDiff): string | null {
  const seed = d.new.seeds[0] ?? d.old.seeds[0];
  if (!seed) return null;
  try {
    return new URL(seed).origin;
  } catch {
    return null;
  }
}

/** `2.31 %` of a changed-pixel ratio; below 0.01 % with three significant digits. */
export function percentText(ratio: number): string {
  const p = ratio * 100;
  return `${p >= 0.01 || p === 0 ? p.toFixed(2) : p.toPrecision(3)} %`;
}
