import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { audit } from '../../src/report/audit.js';
import { renderHtml } from '../../src/report/formats/html.js';
import type { ReportInput } from '../../src/report/formats.js';
import { blankRecord, type LinkDetail, type PageRecord } from '../../src/model/record.js';
import { emptyTimings } from '../../src/model/observation.js';
import { screenshotFileName } from '../../src/browser/screenshot-name.js';
import { SummaryCounter } from '../../src/report/summary.js';

// The HTML report as a person sees it: written to disk next to real screenshot files and opened
// from file:// in Chromium, with no server and (in one test) no network at all.

const O = 'https://site.test';
const u = (p: string): string => `${O}${p}`;
const XSS = '<script>alert(1)</script>';
const DOCS = 12;

let dir: string;
let reportUrl: string;
let input: ReportInput;

function page(p: string, patch: Partial<PageRecord> = {}): PageRecord {
  return {
    ...blankRecord(u(p), u(p), p === '/' ? 0 : 1, p === '/' ? null : u('/')),
    finalUrl: u(p),
    status: 200,
    contentType: 'text/html',
    title: `Page ${p}`,
    settled: true,
    attempts: 1,
    timings: { ...emptyTimings(), ttfb: 5, domContentLoaded: 10, load: 20, settledMs: 100, total: 150 },
    meta: { description: 'd', canonical: null, h1Count: 1 },
    ...patch,
  };
}

const link = (p: string, text: string): LinkDetail => ({ url: u(p), text, source: 'anchor', nofollow: false });

function buildRecords(): PageRecord[] {
  const docs = Array.from({ length: DOCS }, (_, i) => page(`/docs/${i + 1}`, { title: `Doc ${i + 1}`, timings: { ...emptyTimings(), ttfb: 5, domContentLoaded: 10, load: 20, settledMs: 200 + i * 10, total: 300 } }));
  const home = page('/', {
    title: 'Home',
    linkDetails: [link('/about', 'About'), link('/missing', 'Missing page'), link('/boom', 'Boom'), link('/xss', 'Weird'), ...docs.map((d, i) => link(new URL(d.url).pathname, `Doc ${i + 1}`))],
    timings: { ...emptyTimings(), ttfb: 5, domContentLoaded: 10, load: 20, settledMs: 50, total: 100 },
  });
  home.links = home.linkDetails.map((l) => l.url);
  const about = page('/about', { title: 'About, "us"', linkDetails: [link('/missing', 'the missing one')] });
  about.links = [u('/missing')];
  const admin = blankRecord(u('/admin'), u('/admin'), 1, u('/'));
  admin.skipped = 'robots';
  const records = [
    home,
    about,
    page('/missing', { status: 404, title: 'Not found', timings: { ...emptyTimings(), ttfb: 5, domContentLoaded: 10, load: 20, settledMs: 90, total: 100 } }),
    page('/boom', { status: 500, title: 'Server error' }),
    page('/gone', { soft404: true, title: 'Oops' }),
    page('/xss', { title: XSS }),
    ...docs,
    admin,
  ];
  for (const r of records.slice(0, 3)) r.screenshot = screenshotFileName(r.url);
  return records;
}

async function open(p: Page): Promise<{ errors: string[] }> {
  const errors: string[] = [];
  p.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  p.on('pageerror', (e) => errors.push(e.message));
  p.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await p.goto(reportUrl);
  return { errors };
}

const rowUrls = (p: Page): Promise<string[]> => p.locator('#pages tbody tr:not([hidden])').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-url') ?? ''));

test.beforeAll(async ({ browser }) => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-report-'));
  // Screenshots in a sibling folder whose name needs URL escaping; the report links to them relatively.
  const shots = path.join(dir, 'shots #1');
  const out = path.join(dir, 'out');
  fs.mkdirSync(shots);
  fs.mkdirSync(out);
  const records = buildRecords();
  const shooter = await browser.newPage({ viewport: { width: 320, height: 200 } });
  for (const [n, r] of records.filter((x) => x.screenshot).entries()) {
    await shooter.setContent(`<body style="margin:0;background:hsl(${n * 120},70%,50%)"><h1>${n}</h1></body>`);
    await shooter.screenshot({ path: path.join(shots, r.screenshot!) });
  }
  await shooter.close();
  const counter = new SummaryCounter();
  for (const r of records) counter.add(r);
  input = {
    records,
    summary: counter.snapshot(2500, 'done'),
    audit: audit(records, { ignore: [/\/gone$/] }),
    failOn: ['broken-link', 'server-error'],
    screenshotsDir: shots,
  };
  const file = path.join(out, 'index.html');
  fs.writeFileSync(file, renderHtml(input, file));
  reportUrl = pathToFileURL(file).href;
});

test.afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('shows the summary numbers and the issues grouped by rule', async ({ page: p }) => {
  const { errors } = await open(p);
  const count = (k: string) => p.locator(`#summary [data-count="${k}"]`);
  await expect(count('pages')).toHaveText(String(6 + DOCS));
  await expect(count('ok')).toHaveText(String(4 + DOCS));
  await expect(count('errors')).toHaveText('2');
  await expect(count('soft404')).toHaveText('1');
  await expect(count('robotsSkipped')).toHaveText('1');
  await expect(count('failing')).toHaveText('3');
  await expect(p.locator('#verdict')).toHaveAttribute('data-verdict', 'fail');

  const broken = p.locator('.issue-group[data-rule="broken-link"]');
  await expect(broken).toHaveAttribute('data-count', '2');
  await expect(broken).toHaveAttribute('data-ignored', '1');
  await expect(broken.locator('.issue').evaluateAll((xs) => xs.map((x) => x.getAttribute('data-url')))).resolves.toEqual([u('/boom'), u('/gone'), u('/missing')]);
  const missing = broken.locator(`.issue[data-url="${u('/missing')}"]`);
  await expect(missing.locator('.refs li')).toHaveText([`from ${u('/')} “Missing page”`, `from ${u('/about')} “the missing one”`]);
  await expect(broken.locator(`.issue[data-url="${u('/gone')}"]`)).toHaveAttribute('data-ignored', 'true');
  await expect(broken.locator(`.issue[data-url="${u('/gone')}"] .tag.ignored`)).toHaveText('ignored');
  await expect(p.locator('.issue-group[data-rule="server-error"] .issue')).toHaveCount(1);
  await expect(p.locator('.issue-group[data-rule="broken-link"] .desc')).toContainText('4xx/5xx');
  expect(errors).toEqual([]);
});

test('filters rows as you type and counts them', async ({ page: p }) => {
  const { errors } = await open(p);
  const rows = p.locator('#pages tbody tr');
  const total = String(6 + DOCS);
  await expect(rows).toHaveCount(6 + DOCS);
  await expect(p.locator('#shown')).toHaveText(total);
  await p.locator('#filter').pressSequentially('docs/1');
  // /docs/1, /docs/10, /docs/11, /docs/12
  await expect(p.locator('#shown')).toHaveText('4');
  await expect(p.locator('#pages tbody tr:not([hidden])')).toHaveCount(4);
  // Rule ids are searchable; /gone's broken-link is ignored, yet still shown (struck through).
  await p.locator('#filter').fill('broken-link');
  await expect(p.locator('#shown')).toHaveText('3');
  expect((await rowUrls(p)).sort()).toEqual([u('/boom'), u('/gone'), u('/missing')]);
  await p.locator('#filter').fill('no such page anywhere');
  await expect(p.locator('#shown')).toHaveText('0');
  await p.locator('#filter').fill('');
  await expect(p.locator('#shown')).toHaveText(total);
  await p.locator('#only-issues').check();
  // Only non-ignored issues count: /gone's soft 404 is ignored.
  await expect(p.locator('#shown')).toHaveText('2');
  expect((await rowUrls(p)).sort()).toEqual([u('/boom'), u('/missing')]);
  expect(errors).toEqual([]);
});

test('sorts when a column header is clicked', async ({ page: p }) => {
  const { errors } = await open(p);
  const statuses = () => p.locator('#pages tbody tr td.status').evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-v'))));
  await p.locator('#pages th[data-key="status"]').click();
  await expect(p.locator('#pages th[data-key="status"]')).toHaveAttribute('aria-sort', 'ascending');
  let s = await statuses();
  expect(s).toEqual([...s].sort((a, b) => a - b));
  expect(s.at(-1)).toBe(500);
  await p.locator('#pages th[data-key="status"]').click();
  await expect(p.locator('#pages th[data-key="status"]')).toHaveAttribute('aria-sort', 'descending');
  s = await statuses();
  expect(s[0]).toBe(500);
  expect(s[1]).toBe(404);

  await p.locator('#pages th[data-key="settled"]').click();
  const settled = await p.locator('#pages tbody tr td.settled').evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-v'))));
  expect(settled).toEqual([...settled].sort((a, b) => a - b));
  expect(await p.locator('#pages tbody tr').first().getAttribute('data-url')).toBe(u('/'));

  // Text columns sort naturally: Doc 2 before Doc 10.
  await p.locator('#pages th[data-key="title"]').click();
  const titles = await p.locator('#pages tbody tr td.title').allTextContents();
  expect(titles.indexOf('Doc 2')).toBeLessThan(titles.indexOf('Doc 10'));
  // Sorting keeps the filter.
  await p.locator('#filter').fill('doc');
  await p.locator('#pages th[data-key="depth"]').click();
  await expect(p.locator('#shown')).toHaveText(String(DOCS));
  expect(errors).toEqual([]);
});

test('loads the screenshot thumbnails, which link to the full images', async ({ page: p }) => {
  const { errors } = await open(p);
  const imgs = p.locator('#pages img.thumb');
  await expect(imgs).toHaveCount(3);
  for (const img of await imgs.all()) {
    await expect(img).toHaveAttribute('loading', 'lazy');
    expect(await img.getAttribute('src')).toMatch(/^\.\.\/shots%20%231\/[a-z0-9.-]+\.png$/);
    await img.scrollIntoViewIfNeeded();
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(320);
    const href = await img.locator('xpath=..').evaluate((a: HTMLAnchorElement) => a.href);
    expect(fs.existsSync(new URL(href))).toBe(true);
  }
  await expect(p.locator(`#pages tr[data-url="${u('/boom')}"] td.shot img`)).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('works with the network cut: nothing but file: is requested', async ({ browser }) => {
  const context = await browser.newContext();
  const requested: string[] = [];
  await context.route('**/*', (r) => {
    requested.push(r.request().url());
    return r.request().url().startsWith('file:') ? r.continue() : r.abort();
  });
  const p = await context.newPage();
  p.on('request', (r) => requested.push(r.url()));
  const { errors } = await open(p);
  await expect(p.locator('#summary [data-count="pages"]')).toHaveText(String(6 + DOCS));
  await p.locator('#filter').fill('about');
  await expect(p.locator('#shown')).toHaveText('1');
  await p.locator('#filter').fill('');
  await p.locator('#pages th[data-key="url"]').click();
  await expect(p.locator('#pages th[data-key="url"]')).toHaveAttribute('aria-sort', 'ascending');
  for (const img of await p.locator('#pages img.thumb').all()) {
    await img.scrollIntoViewIfNeeded();
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
  }
  expect(requested.filter((x) => !x.startsWith('file:'))).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
});

test('renders a script in a title as text', async ({ page: p }) => {
  const { errors } = await open(p);
  const row = p.locator(`#pages tr[data-url="${u('/xss')}"]`);
  await expect(row.locator('td.title')).toHaveText(XSS);
  await expect(p.locator(`#pages tr[data-url="${u('/about')}"] td.title`)).toHaveText('About, "us"');
  expect(await p.evaluate(() => document.scripts.length)).toBe(1);
  expect(await p.evaluate(() => document.querySelectorAll('#pages script, #issues script').length)).toBe(0);
  await p.waitForTimeout(200);
  expect(errors).toEqual([]);
});
