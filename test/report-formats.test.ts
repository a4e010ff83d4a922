import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { audit, failingIssues } from '../src/report/audit.js';
import { FORMATTERS, parseReportSpec, type ReportInput } from '../src/report/formats.js';
import { CSV_COLUMNS, renderCsv } from '../src/report/formats/csv.js';
import { escapeHtml, renderHtml, screenshotHref } from '../src/report/formats/html.js';
import { renderJson } from '../src/report/formats/json.js';
import { renderJunit } from '../src/report/formats/junit.js';
import { formatElapsed, renderMarkdown, renderMarkdownCapped } from '../src/report/formats/markdown.js';
import { renderSitemap } from '../src/report/formats/sitemap.js';
import { blankRecord, isPage, type LinkDetail, type PageRecord } from '../src/model/record.js';
import { SummaryCounter } from '../src/report/summary.js';
import { summaryLine } from '../src/report/terminal.js';
import { buildRecords, FORMULA_TITLE, HTML, link, O, page, TRICKY_TITLE, u, XSS_TITLE } from './helpers/report-fixture.js';

function buildInput(records = buildRecords(), failOn: string[] = ['broken-link', 'server-error']): ReportInput & { records: PageRecord[] } {
  const counter = new SummaryCounter();
  for (const r of records) counter.add(r);
  return {
    records,
    summary: counter.snapshot(4321, 'done'),
    audit: audit(records, { ignore: [/\/timeout$/] }),
    failOn,
    screenshotsDir: null,
  };
}

const input = buildInput();
const PAGES = input.records.filter(isPage).map((r) => r.url);
const REDIRECTS = input.records.filter((r) => r.redirect).map((r) => r.url);
const sortedSet = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

describe('the fixture audit (what every format must show)', () => {
  it('finds exactly the expected issues', () => {
    expect(input.audit.issues.map((i) => `${i.rule} ${i.url.replace(O, '')}${i.ignored ? ' (ignored)' : ''}`).sort()).toEqual(
      [
        'broken-link /missing',
        'broken-link https://ext.test/gone',
        'blocked https://ext.test/wall',
        'insecure-link http://site.test/plain',
        'broken-fragment /about#history',
        'broken-link /boom',
        'broken-link /gone',
        'broken-link /timeout (ignored)',
        'server-error /boom',
        'noindex /private',
        'long-title /xss',
        'missing-title /untitled',
      ].sort(),
    );
    expect(input.summary).toMatchObject({ pages: 13, redirects: 1, ok: 10, errors: 3, soft404: 1, robotsSkipped: 1, skipped: { robots: 1, scope: 1 } });
  });

  it('names referrers and anchor text for the off-site, insecure and fragment findings', () => {
    const refs = (rule: string): string[] =>
      input.audit.issues.filter((i) => i.rule === rule).flatMap((i) => i.referrers.map((r) => `${i.url} <- ${r.url} "${r.text}"`));
    expect(refs('blocked')).toEqual([`https://ext.test/wall <- ${u('/')} "Walled"`]);
    expect(refs('insecure-link')).toEqual([`http://site.test/plain <- ${u('/')} "Plain http"`]);
    expect(refs('broken-fragment')).toEqual([`${u('/about#history')} <- ${u('/')} "History"`]);
    expect(refs('broken-link').filter((r) => r.startsWith('https://ext.test'))).toEqual([`https://ext.test/gone <- ${u('/')} "Gone elsewhere"`]);
  });
});

describe('link-check rules on records', () => {
  const secure = (checks: PageRecord['linkChecks'], patch: Partial<PageRecord> = {}): PageRecord[] => [
    page('/', { linkDetails: [{ url: 'http://site.test/x', text: 'X', source: 'anchor', nofollow: false }], linkChecks: checks, ...patch }, null),
  ];
  const rules = (records: PageRecord[]): string[] => audit(records).issues.filter((i) => i.rule !== 'missing-h1').map((i) => `${i.rule} ${i.url}`);
  const check = (url: string, kind: 'link' | 'https-form', status: number | null): PageRecord['linkChecks'][number] => ({
    url,
    kind,
    method: 'HEAD',
    status,
    blockedBy: null,
    error: status === null ? { code: 'network', message: 'ERR' } : null,
  });

  it('insecure-link only when the https:// form answers the same status, and only on https: pages', () => {
    expect(rules(secure([check('http://site.test/x', 'link', 200), check('https://site.test/x', 'https-form', 200)]))).toEqual(['insecure-link http://site.test/x']);
    expect(rules(secure([check('http://site.test/x', 'link', 200), check('https://site.test/x', 'https-form', 404)]))).toEqual([]);
    expect(rules(secure([check('http://site.test/x', 'link', 200), check('https://site.test/x', 'https-form', null)]))).toEqual([]);
    expect(rules(secure([check('http://site.test/x', 'link', 200), check('https://site.test/x', 'https-form', 200)], { finalUrl: 'http://site.test/' }))).toEqual([]);
  });

  it('an off-site link check answering 429 is blocked (one request, rate-limited); a page still answering 429 after its retries is a broken link', () => {
    const home = page('/', { linkDetails: [{ url: 'https://ext.test/busy', text: 'Busy', source: 'anchor', nofollow: false }], externalLinks: ['https://ext.test/busy'], linkChecks: [check('https://ext.test/busy', 'link', 429)] }, null);
    const limited = page('/limited', { status: 429, title: null, attempts: 3 });
    expect(rules([home, limited])).toEqual(['broken-link https://site.test/limited', 'blocked https://ext.test/busy']);
  });

  it('an https-form probe that fails is never a broken link, an in-scope check is judged by its own record, and two 404s are no upgrade', () => {
    expect(rules(secure([check('https://site.test/x', 'https-form', 404), check('http://site.test/x', 'link', 404)]))).toEqual([]);
  });

  it('#top needs no element; a target that was not rendered (anchors null) or is broken is not judged', () => {
    const target = page('/t', { anchors: [] });
    const from = (p: string, frag: string): PageRecord => page('/', { fragmentLinks: [{ url: u(p), fragment: frag, text: frag }] }, null);
    expect(rules([from('/t', 'top'), target])).toEqual([]);
    expect(rules([from('/t', 'x'), target])).toEqual([`broken-fragment ${u('/t#x')}`]);
    expect(rules([from('/t', 'x'), page('/t', { anchors: null })])).toEqual([]);
    expect(rules([from('/t', 'x'), page('/t', { anchors: [], status: 404 })]).filter((r) => r.startsWith('broken-fragment'))).toEqual([]);
  });

  it('reads records written before these fields existed', () => {
    const old = page('/') as Partial<PageRecord>;
    delete old.linkChecks;
    delete old.fragmentLinks;
    delete old.anchors;
    expect(() => audit([old as PageRecord])).not.toThrow();
  });
});

describe('duplicate-title', () => {
  it('flags two different pages with one title, but not a redirect and the page it lands on', () => {
    const a = page('/a', { title: 'Same' });
    const b = page('/b', { title: 'Same' });
    const old = page('/old', { title: 'Moved', finalUrl: u('/moved'), redirectChain: [{ url: u('/old'), status: 301, kind: 'http' }] });
    const moved = page('/moved', { title: 'Moved' });
    const found = audit([a, b, old, moved]).issues.filter((i) => i.rule === 'duplicate-title').map((i) => i.url.replace(O, ''));
    expect(found.sort()).toEqual(['/a', '/b']);
  });
});

describe('registry', () => {
  it('registers every format under its --output-dir file name', () => {
    expect(Object.fromEntries(Object.entries(FORMATTERS).map(([k, f]) => [k, f.fileName]))).toEqual({
      jsonl: 'pages.jsonl',
      json: 'report.json',
      csv: 'pages.csv',
      html: 'index.html',
      junit: 'junit.xml',
      sitemap: 'sitemap.xml',
      markdown: 'summary.md',
    });
    for (const name of ['csv', 'html', 'junit', 'sitemap', 'markdown']) expect(parseReportSpec(`${name}:out/x`).format).toBe(name);
  });
});

describe('csv', () => {
  const text = renderCsv(input);
  const rows = parseCsv(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];

  it('has the header row and one row per page and per redirect record (skipped records left out)', () => {
    expect(text.split('\n')[0]).toBe(CSV_COLUMNS.join(','));
    expect(rows.map((r) => r.url).sort()).toEqual([...PAGES, ...REDIRECTS].sort());
    expect(rows.filter((r) => r.kind === 'redirect').map((r) => [r.url, r.status, r.final_url, r.title, r.links])).toEqual([
      [u('/redirected'), '301', u('/new-place'), '', '0'],
      [u('/offsite'), '302', 'https://other.test/landing', '', '0'],
    ]);
    expect(rows.map((r) => r.url)).not.toContain(u('/admin'));
  });

  it('round-trips titles with commas, quotes, newlines and markup', () => {
    const about = rows.find((r) => r.url === u('/about'))!;
    expect(about.title).toBe(TRICKY_TITLE);
    expect(rows.find((r) => r.url === u('/xss'))!.title).toBe(XSS_TITLE);
  });

  it('defuses spreadsheet formulas in titles', () => {
    expect(rows.find((r) => r.url === u('/formula'))!.title).toBe(`'${FORMULA_TITLE}`);
  });

  it('fills every column: status, depth, referrer, links, settled ms, issue ids', () => {
    const home = rows.find((r) => r.url === u('/'))!;
    expect(home).toEqual({
      url: u('/'),
      kind: 'page',
      status: '200',
      final_url: '',
      title: 'Home',
      depth: '0',
      referrer: '',
      links: '14',
      settled_ms: '101',
      issues: '',
      ignored_issues: '',
    });
    expect(rows.find((r) => r.url === u('/boom'))!.issues!.split(' ').sort()).toEqual(['broken-link', 'server-error']);
    expect(rows.find((r) => r.url === u('/missing'))).toMatchObject({ status: '404', referrer: u('/'), issues: 'broken-link' });
    expect(rows.find((r) => r.url === u('/timeout'))).toMatchObject({ status: '', issues: '', ignored_issues: 'broken-link' });
    // Every issue of a page appears in its row, and nothing else does.
    // Findings about URLs without a page of their own (off-site links, http:// forms, fragments)
    // have no row: report.json, JUnit, HTML and markdown carry them.
    const fromCsv = rows.flatMap((r) => [...(r.issues ?? '').split(' '), ...(r.ignored_issues ?? '').split(' ')].filter(Boolean).map((rule) => `${rule} ${r.url}`));
    expect(fromCsv.sort()).toEqual(sortedSet(input.audit.issues.filter((i) => PAGES.includes(i.url)).map((i) => `${i.rule} ${i.url}`)));
    expect(input.audit.issues.filter((i) => !PAGES.includes(i.url)).map((i) => `${i.rule} ${i.url}`).sort()).toEqual(
      ['broken-link https://ext.test/gone', 'blocked https://ext.test/wall', 'insecure-link http://site.test/plain', `broken-fragment ${u('/about#history')}`].sort(),
    );
  });
});

describe('junit', () => {
  const text = renderJunit(input);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    isArray: (name) => ['testsuite', 'testcase', 'failure'].includes(name),
  });
  const doc = parser.parse(text);
  const suite = doc.testsuites.testsuite[0];
  const cases = suite.testcase as { '@_name': string; '@_classname': string; failure?: { '@_type': string; '@_message': string; '#text': string }[] }[];

  it('is well-formed XML with one testsuite named spacrawl', () => {
    expect(XMLValidator.validate(text)).toBe(true);
    expect(doc.testsuites.testsuite).toHaveLength(1);
    expect(suite['@_name']).toBe('spacrawl');
  });

  it('has a testcase per page (plus one per failing off-site URL) and a failure per non-ignored --fail-on issue', () => {
    expect(cases.map((c) => c['@_name']).sort()).toEqual([...PAGES, ...REDIRECTS, 'https://ext.test/gone'].sort());
    expect(cases.filter((c) => c['@_classname'] === 'spacrawl.redirects').map((c) => c['@_name'])).toEqual(REDIRECTS);
    const failures = cases.flatMap((c) => (c.failure ?? []).map((f) => `${f['@_type']} ${c['@_name'].replace(O, '')}`));
    expect(failures.sort()).toEqual(['broken-link /boom', 'broken-link /gone', 'broken-link /missing', 'broken-link https://ext.test/gone', 'server-error /boom']);
    expect(suite['@_tests']).toBe(String(PAGES.length + REDIRECTS.length + 1));
    expect(suite['@_failures']).toBe('5');
    expect(doc.testsuites['@_failures']).toBe('5');
  });

  it('names every referrer and its anchor text in the failure body', () => {
    const f = cases.find((c) => c['@_name'] === u('/missing'))!.failure![0]!;
    expect(f['@_message']).toBe('HTTP 404');
    expect(f['#text']).toContain(`${u('/')}  "Missing page"`);
    expect(f['#text']).toContain(`${u('/about')}  "see the "missing" one"`);
  });

  it('follows --fail-on: none fails nothing, warnings adds warning-level rules', () => {
    const none = parser.parse(renderJunit({ ...input, failOn: ['none'] }));
    expect(none.testsuites.testsuite[0]['@_failures']).toBe('0');
    const warn = parser.parse(renderJunit({ ...input, failOn: ['warnings'] }));
    const types = (warn.testsuites.testsuite[0].testcase as typeof cases).flatMap((c) => (c.failure ?? []).map((f) => f['@_type']));
    expect(sortedSet(types)).toEqual(['blocked', 'broken-fragment', 'broken-link', 'missing-title', 'server-error']);
    expect(types).toHaveLength(failingIssues(input.audit, ['warnings']).length);
  });
});

describe('sitemap', () => {
  const text = renderSitemap(input);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: (n) => n === 'url' }).parse(text);

  it('lists the 200 HTML pages that are not noindex, soft 404s or errors, by final URL, each once', () => {
    expect(XMLValidator.validate(text)).toBe(true);
    expect(doc.urlset['@_xmlns']).toBe('http://www.sitemaps.org/schemas/sitemap/0.9');
    const locs = (doc.urlset.url as { loc: string }[]).map((x) => x.loc);
    expect(locs).toHaveLength(new Set(locs).size);
    expect(locs.sort()).toEqual(['/', '/about', '/formula', '/new-place', '/search?q=a&b=c', '/untitled', '/xss'].map(u).sort());
    expect(text).toContain('<loc>https://site.test/search?q=a&amp;b=c</loc>');
  });
});

describe('json', () => {
  it('carries the summary, every issue and every record', () => {
    const doc = JSON.parse(renderJson(input)) as { schemaVersion: number; summary: { pages: number }; issues: { rule: string; url: string }[]; pages: PageRecord[] };
    expect(doc.schemaVersion).toBe(1);
    expect(doc.summary.pages).toBe(PAGES.length);
    expect(doc.pages.map((p) => p.url)).toEqual(input.records.map((r) => r.url));
    expect(doc.issues.map((i) => `${i.rule} ${i.url}`)).toEqual(input.audit.issues.map((i) => `${i.rule} ${i.url}`));
  });
});

describe('markdown', () => {
  const text = renderMarkdown(input);
  const tableRules = (md: string): string[] =>
    md
      .split('\n')
      .filter((l) => /^\| \*{0,2}`[a-z0-9-]+`/.test(l))
      .map((l) => /`([a-z0-9-]+)`/.exec(l)![1]!);

  it('has the verdict, the totals and an issue table of exactly the rules found', () => {
    expect(text).toContain('**❌ Fails** under `--fail-on broken-link, server-error`: 5 issues.');
    // The off-site redirect is skipped for scope: a column of its own, as on the terminal.
    expect(text).toContain('| pages | ok | errors | soft 404s | redirects | robots skipped | skipped (scope) | unique URLs | elapsed |');
    expect(text).toContain(`| 13 | 10 | 3 | 1 | 1 | 1 | 1 | ${input.summary.uniqueUrls} | ${formatElapsed(4321)} |`);
    expect(sortedSet(tableRules(text))).toEqual(['blocked', 'broken-fragment', 'broken-link', 'insecure-link', 'long-title', 'missing-title', 'noindex', 'server-error']);
    expect(text).toMatch(/\| \*\*`broken-link`\*\* ❌ \| error \| 4 \| 1 \|/);
    expect(text).toMatch(/\| `insecure-link` \| notice \| 1 \| 0 \|/);
    expect(text).toMatch(/\| `broken-fragment` \| warning \| 1 \| 0 \|/);
    expect(text).toMatch(/\| `noindex` \| notice \| 1 \| 0 \|/);
  });

  it('lists the most severe issues first with URL and first referrer, never the ignored ones', () => {
    const items = text.split('\n').filter((l) => l.startsWith('- `'));
    expect(items).toHaveLength(input.audit.issues.filter((i) => !i.ignored).length);
    expect(items.slice(0, 4).every((l) => /^- `(broken-link|server-error)`/.test(l))).toBe(true);
    expect(items.find((l) => l.includes('/missing'))).toContain('linked from [https://site.test/](<https://site.test/>) (“Missing page”) and 1 more');
    expect(text).not.toContain('/timeout');
  });

  it('escapes page text: no raw HTML, no table breaks, no @mentions', () => {
    expect(text).not.toContain('<script>');
    expect(text).toContain('&lt;script&gt;');
    expect(text).not.toMatch(/@octocat/);
    expect(text).toContain('\\| @\u200boctocat');
  });

  it('says so when everything passes', () => {
    const ok = renderMarkdown({ ...input, failOn: ['none'] });
    expect(ok).toContain('**✅ Passes** under `--fail-on none`.');
  });

  it('an interrupted crawl with no failing issue is incomplete, never passing (markdown and html); a failing one still fails', () => {
    const stopped = { ...input, failOn: ['none'], summary: { ...input.summary, endReason: 'interrupted' as const } };
    const md = renderMarkdown(stopped);
    expect(md).toContain(`**⚠️ Incomplete**: the crawl was interrupted; no issue under \`--fail-on none\` in the ${input.summary.pages} pages it reached.`);
    expect(md).not.toContain('Passes');
    const html = renderHtml(stopped, null);
    expect(html).toContain(`<p class="verdict incomplete" id="verdict" data-verdict="incomplete">Incomplete: the crawl was interrupted; no issue under --fail-on none in the ${input.summary.pages} pages it reached.</p>`);
    expect(html).not.toContain('data-verdict="pass"');
    expect(renderMarkdown({ ...stopped, failOn: input.failOn })).toContain('**❌ Fails** under `--fail-on broken-link, server-error`: 5 issues.');
    // A crawl that spent its budget ended as asked: it passes.
    expect(renderMarkdown({ ...stopped, summary: { ...input.summary, endReason: 'max-pages' } })).toContain('**✅ Passes** under `--fail-on none`.');
  });

  it('lists at most 20 issues', () => {
    const many = buildRecords();
    for (let n = 0; n < 30; n++) many.push(page(`/broken-${n}`, { status: 404 }));
    const md = renderMarkdown(buildInput(many));
    expect(md.split('\n').filter((l) => l.startsWith('- `'))).toHaveLength(20);
    expect(md).toContain('### The 20 most severe of');
  });

  it('renderMarkdownCapped stays within the byte cap and ends with the pointer', () => {
    const big = buildRecords();
    for (let n = 0; n < 300; n++) big.push(page(`/é-${n}`, { title: `Ünïcödé title number ${n} 🎉 that is far longer than sixty characters in total` }));
    const bigInput = buildInput(big, ['warnings']);
    const full = renderMarkdown(bigInput);
    expect(renderMarkdownCapped(bigInput, Buffer.byteLength(full) + 10, 'x')).toBe(full);
    expect(Buffer.byteLength(full)).toBeGreaterThan(3000);
    for (const cap of [64, 500, 1234, Math.floor(Buffer.byteLength(full) / 2), Buffer.byteLength(full) - 1]) {
      const capped = renderMarkdownCapped(bigInput, cap, 'the “spacrawl-report” artifact');
      expect(Buffer.byteLength(capped, 'utf8')).toBeLessThanOrEqual(cap);
      expect(capped).not.toContain('\uFFFD');
      if (cap >= 200) {
        const lines = capped.trimEnd().split('\n');
        expect(lines.at(-1)).toBe('_Summary truncated; the full report is in the “spacrawl-report” artifact._');
        expect(lines.at(-2)).toBe('');
        expect(capped.startsWith('## spacrawl')).toBe(true);
      }
    }
  });
});

describe('html (static checks; the browser test is test/e2e/report.pw.ts)', () => {
  it('escapes page text and runs only its own script', () => {
    const html = renderHtml(input, '/tmp/r/index.html');
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain(escapeHtml(XSS_TITLE));
    expect(html).not.toContain('<b>bold</b>');
    // Nothing loaded from the network (it must work from file://); links to crawled and
    // off-site URLs are plain anchors.
    expect(html).not.toMatch(/src="(https?:)?\/\//);
    expect(html).not.toMatch(/<link[^>]+href="(https?:)?\/\//);
    expect(html).toContain('<a href="https://ext.test/gone" rel="noopener noreferrer">');
    expect(html).toContain('<input id="filter"');
    expect(html).toContain('<span id="shown">13</span>');
  });

  it('lists redirect records in their own section (where each leads), not among pages or skipped URLs', () => {
    const html = renderHtml(input, '/tmp/r/index.html');
    const section = (id: string): string => html.split(`<section id="${id}">`)[1]!.split('</section>')[0]!;
    const urlsIn = (part: string): string[] => [...part.matchAll(/<tr (?:class="[^"]*" )?data-url="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
    expect(urlsIn(section('redirects'))).toEqual(REDIRECTS);
    expect(section('redirects')).toContain('off-site, not followed');
    expect(urlsIn(section('skipped'))).toEqual([u('/admin')]);
    expect(urlsIn(section('pages')).sort()).toEqual([...PAGES].sort());
    expect(html).toContain('<dt>redirects</dt>');
  });

  it('links screenshots relative to the report folder', () => {
    const html = renderHtml({ ...input, screenshotsDir: '/tmp/out/screenshots' }, '/tmp/out/index.html');
    expect(html).toContain('<img class="thumb" src="screenshots/home.png" loading="lazy"');
    expect(screenshotHref('/tmp/a b/shots', 'x#1.png', '/tmp/reports/r.html')).toBe('../a%20b/shots/x%231.png');
    expect(screenshotHref('/tmp/shots', 'x.png', null)).toBe('file:///tmp/shots/x.png');
    expect(path.isAbsolute(screenshotHref('/tmp/shots', 'x.png', '/tmp/r.html'))).toBe(false);
  });
});

describe('the totals agree across formats', () => {
  it('summary.md, index.html and the terminal line count skipped URLs by reason, as report.json does', () => {
    const records = buildRecords();
    for (const n of [1, 2, 3]) records.push(page(`/later/${n}`, { skipped: 'budget', status: null, title: null, links: [], linkDetails: [], attempts: 0 }));
    records.push(page('/cal/2099', { skipped: 'trap', status: null, title: null, links: [], linkDetails: [], attempts: 0 }));
    const i = buildInput(records);
    // `scope` is the fixture's off-site redirect (a redirect record, skipped for its target).
    expect(i.summary.skipped).toEqual({ budget: 3, robots: 1, scope: 1, trap: 1 });
    // summary.md: the totals table, read as a table (header cells → value cells).
    const md = renderMarkdown(i).split('\n');
    const at = md.findIndex((l) => l.startsWith('| pages |'));
    const cells = (l: string): string[] => l.split('|').slice(1, -1).map((c) => c.trim());
    const table = Object.fromEntries(cells(md[at]!).map((h, n) => [h, cells(md[at + 2]!)[n]]));
    expect(table).toEqual({
      pages: '13',
      ok: '10',
      errors: '3',
      'soft 404s': '1',
      redirects: '1',
      'robots skipped': '1',
      'skipped (budget)': '3',
      'skipped (scope)': '1',
      'skipped (trap)': '1',
      'unique URLs': String(i.summary.uniqueUrls),
      elapsed: formatElapsed(4321),
    });
    expect(md[at + 1]).toBe(`|${'---:|'.repeat(11)}`);
    // index.html: the summary's stats, by data-count key.
    const html = renderHtml(i, null);
    const summary = html.split('<section id="summary">')[1]!.split('</section>')[0]!;
    const stats = Object.fromEntries([...summary.matchAll(/<dt>([^<]+)<\/dt><dd data-count="([^"]+)">([^<]+)<\/dd>/g)].map((m) => [m[2], `${m[1]}: ${m[3]}`]));
    expect(stats['robotsSkipped']).toBe('robots skipped: 1');
    expect(stats['skipped-budget']).toBe('skipped (budget): 3');
    expect(stats['skipped-trap']).toBe('skipped (trap): 1');
    // The skipped-URL table's heading counts the rows it lists (the off-site redirect is among the redirects).
    expect(html).toContain('<summary>5 URLs not visited (budget: 3, robots: 1, trap: 1)</summary>');
    expect(html.split('<section id="skipped">')[1]!.split('</section>')[0]!.match(/<tr data-url=/g)).toHaveLength(5);
    expect(summaryLine(i.summary)).toContain('1 skipped by robots.txt, 3 skipped (budget), 1 skipped (scope), 1 skipped (trap),');
  });
});

describe('edge cases', () => {
  const xmlParser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: (n) => ['testcase', 'failure', 'url'].includes(n) });

  it('keeps XML well-formed when page text has control characters or lone surrogates', () => {
    const records = buildRecords();
    const bad = 'bell\u0007 nul\u0000 half\uD800 ok';
    records.push(page('/ctrl', { status: 404, title: bad }));
    records[0]!.linkDetails.push(link('/ctrl', `anchor ${bad}`));
    const i = buildInput(records);
    for (const text of [renderJunit(i), renderSitemap(i)]) expect(XMLValidator.validate(text)).toBe(true);
    const tc = (xmlParser.parse(renderJunit(i)).testsuites.testsuite.testcase as { '@_name': string; failure?: { '#text': string }[] }[]).find((c) => c['@_name'] === u('/ctrl'))!;
    expect(tc.failure![0]!['#text']).toContain('anchor bell\uFFFD nul\uFFFD half\uFFFD ok');
  });

  it('renders an empty crawl in every format', () => {
    const empty = buildInput([]);
    for (const [name, f] of Object.entries(FORMATTERS)) expect({ name, type: typeof f.render(empty, '/tmp/x/out') }).toEqual({ name, type: 'string' });
    expect(XMLValidator.validate(renderSitemap(empty))).toBe(true);
    expect(XMLValidator.validate(renderJunit(empty))).toBe(true);
    expect(xmlParser.parse(renderJunit(empty)).testsuites['@_tests']).toBe('0');
    expect(renderCsv(empty)).toBe(`${CSV_COLUMNS.join(',')}\n`);
    expect(renderMarkdown(empty)).toContain('No issues found.');
    expect(renderHtml(empty, null)).toContain('<span id="shown">0</span>');
  });
});
