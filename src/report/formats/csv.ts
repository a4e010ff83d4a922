import { stringify } from 'csv-stringify/sync';
import { isPage, type PageRecord } from '../../model/record.js';
import type { ReportInput, ReportSink } from '../input.js';
import { stringSink } from './shared.js';

/** Column headers of `pages.csv`, in order. */
export const CSV_COLUMNS = ['url', 'kind', 'status', 'final_url', 'title', 'depth', 'referrer', 'links', 'settled_ms', 'issues', 'ignored_issues'] as const;

export { CSV_NOTE } from './csv-note.js';

/** Rows handed to csv-stringify at once. */
const CHUNK = 256;

/**
 * `csv`: one row per page and per redirect record, header first. `kind` is `page` or `redirect`
 * (a URL that only forwards: its `final_url` is where to, its `status` what it answered, and it
 * has no title and no links; an off-site redirect is `redirect` too). `final_url` is empty when
 * a page was not redirected. Unknown values are empty cells. `issues` holds the rule ids of the page's issues (space-separated, each once, in audit
 * order: most severe first); `ignored_issues` the rule ids of its ignored ones.
 *
 * Cells that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR —
 * a page title is written by whoever runs the site) are prefixed with `'`, as OWASP advises.
 * Rows are written in chunks as the records are read.
 */
export function writeCsv(input: ReportInput, sink: ReportSink): void {
  const issueRules = new Map<string, { active: string[]; ignored: string[] }>();
  for (const i of input.audit.issues) {
    let e = issueRules.get(i.url);
    if (!e) {
      e = { active: [], ignored: [] };
      issueRules.set(i.url, e);
    }
    const list = i.ignored ? e.ignored : e.active;
    if (!list.includes(i.rule)) list.push(i.rule);
  }
  let rows: (string | number)[][] = [];
  let header = true;
  const flush = (): void => {
    sink.write(stringify(rows, { header, columns: [...CSV_COLUMNS], escape_formulas: true, record_delimiter: 'unix' }));
    header = false;
    rows = [];
  };
  for (const r of input.records as Iterable<PageRecord>) {
    if (!isPage(r) && !r.redirect) continue;
    const e = issueRules.get(r.url);
    rows.push([
      r.url,
      r.redirect ? 'redirect' : 'page',
      r.status ?? '',
      r.finalUrl && (r.redirect || r.redirectChain.length) ? r.finalUrl : '',
      r.title ?? '',
      r.depth,
      r.referrer ?? '',
      r.links.length,
      r.timings.settledMs ?? '',
      e ? e.active.join(' ') : '',
      e ? e.ignored.join(' ') : '',
    ]);
    if (rows.length >= CHUNK) flush();
  }
  if (rows.length || header) flush();
}

/** {@link writeCsv} as one string. */
export function renderCsv(input: ReportInput): string {
  const s = stringSink();
  writeCsv(input, s);
  return s.text();
}
