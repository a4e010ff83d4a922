import type { PageRecord } from '../model/record.js';

/** How {@link recordLine} renders. */
export interface RecordLineOptions {
  /** Add the settle timings: `ttfb`, `load` and when the page was read (`settled` or `settle cap`). @default false */
  verbose?: boolean;
  /** Colour the status (picocolors' formatters; identity functions when colour is off). @default none */
  colors?: { red(s: string): string; green(s: string): string; yellow(s: string): string; cyan(s: string): string; dim(s: string): string };
}
import type { CrawlSummary } from '../model/summary.js';
import { otherSkipped } from './summary.js';
import { printable } from '../util/printable.js';

/** Path, query and hash of `url` when it is on `origin`, else the whole URL (for short log lines). */
export function shortUrl(url: string, origin: string | null): string {
  try {
    const u = new URL(url);
    if (origin && u.origin === origin) return `${u.pathname}${u.search}${u.hash}`;
  } catch {
    // not a URL: print as is
  }
  return url;
}

/**
 * One log line for a record, e.g. `200  /docs/intro  12 links  340 ms` or
 * `ERR  /slow  timeout: navigation timed out after 30000 ms` or `skip /admin  robots`.
 * Ready for a terminal: what came from the page (an error's message) has its control codes
 * escaped (see {@link printable}); the only ones left are the colour of the first word.
 */
export function recordLine(r: PageRecord, origin: string | null, opts: RecordLineOptions = {}): string {
  const c = opts.colors;
  const where = shortUrl(r.requestedUrl ?? r.url, origin);
  if (r.skipped && r.skipped !== 'non-html' && r.skipped !== 'scope') {
    return `${c ? c.dim('skip') : 'skip'} ${printable(`${where}  (${r.skipped}${r.error ? `: ${r.error.message}` : ''})`)}`;
  }
  const status = (r.status === null ? 'ERR' : String(r.status)).padEnd(3);
  const paint = !c ? (s: string) => s : r.status === null || r.status >= 400 || r.soft404 ? c.red : r.status >= 300 ? c.cyan : c.green;
  const parts = [where];
  if (r.finalUrl && r.redirectChain.length) parts.push(`→ ${shortUrl(r.finalUrl, origin)}`);
  if (r.skipped === 'scope' && r.redirect) parts.push('(redirect off-site: not followed)');
  else if (r.skipped) parts.push(`(${r.skipped}${r.contentType ? `: ${r.contentType.split(';')[0]}` : ''})`);
  else if (r.redirect) parts.push('(redirect)');
  // A page that gave no answer was never read: its error says why, a link count would be noise.
  else if (r.status !== null || r.links.length > 0) parts.push(`${r.links.length} link${r.links.length === 1 ? '' : 's'}`);
  if (r.timings.total !== null) parts.push(`${r.timings.total} ms`);
  if (opts.verbose && !r.skipped && r.status !== null) {
    const t = r.timings;
    const fmt = (n: number | null): string => (n === null ? '?' : `${n} ms`);
    parts.push(`(ttfb ${fmt(t.ttfb)}, load ${fmt(t.load)}, ${r.settled ? 'settled' : 'settle cap'} ${fmt(t.settledMs)})`);
  }
  if (!r.settled && r.error === null && r.status !== null && !r.skipped && !r.redirect) parts.push('(not quiet: read at settle cap)');
  if (r.soft404) parts.push('(soft 404: renders a "not found" screen)');
  if (r.error) parts.push(`${r.error.code}: ${r.error.message}`);
  return `${paint(status)}  ${printable(parts.join('  '))}`;
}

/** The closing summary line, counted as DESIGN.md defines. */
export function summaryLine(s: CrawlSummary): string {
  const secs = (s.elapsedMs / 1000).toFixed(1);
  const extra = otherSkipped(s)
    .map(([k, n]) => `, ${n} skipped (${k})`)
    .join('');
  const hostless = s.unreachable ? ` (${s.unreachable} unreachable, not even robots.txt)` : '';
  const sm = s.sitemapUrls ? `, ${s.sitemapUrls} from sitemaps (${s.orphans.length} orphan${s.orphans.length === 1 ? '' : 's'})` : '';
  const end = s.endReason === 'done' ? '' : ` [stopped: ${s.endReason}]`;
  const soft = s.soft404 ? `, ${s.soft404} soft 404${s.soft404 === 1 ? '' : 's'}` : '';
  const redirects = s.redirects ? `, ${s.redirects} redirect${s.redirects === 1 ? '' : 's'}` : '';
  const unreachable = s.robotsUnavailable ? ` (${s.robotsUnavailable === s.robotsSkipped ? 'all' : s.robotsUnavailable} because robots.txt could not be fetched)` : '';
  const l = s.logins;
  const logins = l ? `, ${l.logins} login${l.logins === 1 ? '' : 's'} (${l.relogins} after the session ended${l.failedLogins ? `, ${l.failedLogins} failed` : ''})` : '';
  return `${s.pages} page${s.pages === 1 ? '' : 's'}, ${s.ok} ok, ${s.errors} error${s.errors === 1 ? '' : 's'}${hostless}${soft}${redirects}, ${s.robotsSkipped} skipped by robots.txt${unreachable}${extra}, ${s.uniqueUrls} unique URL${s.uniqueUrls === 1 ? '' : 's'}${sm}${logins}, ${secs} s${end}`;
}
