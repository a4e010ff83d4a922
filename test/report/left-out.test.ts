// CSV, JUnit and the sitemap hold part of a crawl: each says what it leaves out (the sitemap and
// JUnit in the file, the CSV on the log when --report asks for it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { ReportFiles } from '../../src/cli/reporting.js';
import { audit } from '../../src/report/audit.js';
import { writeReport, type ReportInput } from '../../src/report/formats.js';
import { CSV_COLUMNS, CSV_NOTE } from '../../src/report/formats/csv.js';
import { junitLeftOut, renderJunit } from '../../src/report/formats/junit.js';
import { renderSitemap, SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS, SITEMAP_NOTE } from '../../src/report/formats/sitemap.js';
import { blankRecord, isPage, type PageRecord } from '../../src/model/record.js';
import { SummaryCounter } from '../../src/report/summary.js';
import { textSink } from '../helpers/cli.js';
import { buildRecords } from '../helpers/report-fixture.js';

function buildInput(records: PageRecord[] = buildRecords()): ReportInput & { records: PageRecord[] } {
  const counter = new SummaryCounter();
  for (const r of records) counter.add(r);
  return { records, summary: counter.snapshot(1000, 'done'), audit: audit(records), failOn: ['broken-link'], screenshotsDir: null };
}

describe('what each partial format leaves out', () => {
  const input = buildInput();

  it('the sitemap opens with a comment naming what it leaves out, also when it lists nothing', () => {
    const text = renderSitemap(input);
    expect(XMLValidator.validate(text)).toBe(true);
    expect(text.split('\n').slice(1, 3)).toEqual(['<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">', `  <!--${SITEMAP_NOTE}-->`]);
    expect(SITEMAP_NOTE).toBe(
      ' spacrawl: the in-scope HTML pages that answered 200, by final URL. Left out: redirects, pages with an error or a status other than 200, soft 404s, noindex pages, non-HTML files and skipped URLs (robots, budget ...) ',
    );
    const empty = renderSitemap(buildInput([]));
    expect(XMLValidator.validate(empty)).toBe(true);
    expect(empty).toContain(`<!--${SITEMAP_NOTE}-->`);
    // The comment is not a URL: a sitemap reader sees the same <url> entries.
    const urls = new XMLParser({ isArray: (n) => n === 'url' }).parse(text).urlset.url as { loc: string }[];
    expect(urls.length).toBeGreaterThan(0);
  });

  it('JUnit carries a left-out property: the records with no test case, and where the other issues are', () => {
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_' }).parse(renderJunit(input));
    const props = doc.testsuites.testsuite.properties.property as { '@_name': string; '@_value': string }[];
    const notPages = input.records.filter((r) => !isPage(r) && !r.redirect).length;
    expect(notPages).toBe(1);
    expect(props).toEqual([
      { '@_name': 'fail-on', '@_value': 'broken-link' },
      {
        '@_name': 'left-out',
        '@_value':
          '1 URL not visited as a page (skipped: robots, budget, trap ...; non-HTML files) has no test case; issues of rules outside fail-on are in system-out, not failures; pages.jsonl has every record',
      },
    ]);
    expect(junitLeftOut(2)).toMatch(/^2 URLs not visited as a page \(.*\) have no test case;/);
  });

  it('a CSV asked for with --report says on the log what it leaves out; one --output-dir writes does not', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-left-out-'));
    try {
      const log: string[] = [];
      const out = textSink();
      const csv = path.join(dir, 'pages.csv');
      new ReportFiles([{ format: 'csv', path: csv }, { format: 'csv', path: null }, { format: 'csv', path: path.join(dir, 'implied.csv'), implied: true }], path.join(dir, 'records.jsonl'), out.stream, (l) => log.push(l), writeReport).onEnd(input);
      expect(log).toEqual([`pages.csv: ${CSV_NOTE}`, `csv on stdout: ${CSV_NOTE}`]);
      expect(CSV_NOTE).toBe(
        "one row per page and redirect record; left out: skipped URLs (robots, budget, trap ...), non-HTML files, each page's links (linkDetails, externalLinks) and issues about URLs without a row (off-site links): pages.jsonl and report.json have them",
      );
      // The files themselves stay plain CSV: the header first.
      expect(fs.readFileSync(csv, 'utf8').split('\n')[0]).toBe(CSV_COLUMNS.join(','));
      expect(out.text().split('\n')[0]).toBe(CSV_COLUMNS.join(','));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the sitemap stays within the protocol: 50,000 URLs and 50 MiB', () => {
  /** `n` 200 HTML pages whose URLs are `chars` characters long, in crawl order. */
  function longPages(n: number, chars: number): PageRecord[] {
    return Array.from({ length: n }, (_, i) => {
      const prefix = `https://site.test/${String(i).padStart(6, '0')}/`;
      const url = `${prefix}${'a'.repeat(chars - prefix.length)}`;
      const r = blankRecord(url, url, 1, null);
      return { ...r, status: 200, finalUrl: url, contentType: 'text/html' };
    });
  }

  it('long URLs reach the byte limit first: the file lists a prefix of them and counts the rest', () => {
    const records = longPages(30_000, 2_000);
    const text = renderSitemap(buildInput(records));
    const size = Buffer.byteLength(text);
    expect(size).toBeLessThanOrEqual(SITEMAP_MAX_BYTES);
    const locs = (new XMLParser({ isArray: (n) => n === 'url' }).parse(text).urlset.url as { loc: string }[]).map((x) => x.loc);
    // Full up to one URL's entry (2,033 bytes) and the room kept for the closing comment.
    expect(SITEMAP_MAX_BYTES - size).toBeLessThan(2_033 + 200);
    expect(locs).toEqual(records.slice(0, locs.length).map((r) => r.url));
    expect(text.endsWith(`  <!-- ${30_000 - locs.length} more URLs left out: a sitemap holds at most 50000 URLs and 52428800 bytes -->\n</urlset>\n`)).toBe(true);
    expect(locs.length).toBe(25_788);
  });

  it('short URLs reach the URL limit first', () => {
    const text = renderSitemap(buildInput(longPages(50_001, 40)));
    expect((text.match(/<loc>/g) ?? []).length).toBe(SITEMAP_MAX_URLS);
    expect(text.endsWith('  <!-- 1 more URL left out: a sitemap holds at most 50000 URLs and 52428800 bytes -->\n</urlset>\n')).toBe(true);
  });
});
