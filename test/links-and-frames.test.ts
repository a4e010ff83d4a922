import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { NO_CONTENT_PATHS, startFramesSite, startClosedDeclarativeSite, startLinkKindsSite, startOpaqueFramesSite, startStatusSite } from '../fixtures/sites/links.js';
import { sharedBrowser } from './helpers/browser.js';
import { Crawler } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import { audit } from '../src/report/audit.js';
import type { PageRecord } from '../src/model/record.js';
import { runInProcess } from './helpers/cli.js';
import { recordProblems } from './helpers/records.js';


let browser: Browser;
const servers: FixtureServer[] = [];
const keep = (s: FixtureServer): FixtureServer => (servers.push(s), s);

beforeAll(async () => {
  browser = await sharedBrowser();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function run(opts: Omit<CrawlOptions, 'browser'>): Promise<{ recs: PageRecord[]; notices: string[] }> {
  const notices: string[] = [];
  const crawler = new Crawler({ settleTimeoutMs: 3000, soft404: false, click: 'off', ...opts, browser, onNotice: (m) => notices.push(m) });
  const recs: PageRecord[] = [];
  for await (const r of crawler.records()) recs.push(r);
  return { recs, notices };
}

/** `origin`-relative form of a URL on `origin`; other URLs as they are. */
const rel = (u: string, origin: string): string => (u.startsWith(`${origin}/`) ? u.slice(origin.length) : u);

/** Path + query of the URLs of visited records (skipped: null), sorted. */
const visited = (recs: PageRecord[]): string[] =>
  recs
    .filter((r) => r.skipped === null)
    .map((r) => new URL(r.url).pathname + new URL(r.url).search)
    .sort();

/** A record's links as sorted `source url "text"` lines, URLs on `origin` shortened. */
const linkLines = (r: PageRecord, origin: string): string[] => r.linkDetails.map((l) => `${l.source} ${rel(l.url, origin)} "${l.text}"`).sort();

/** Run `spacrawl ...args` in-process (runCli with in-memory streams: exit code and output are what the process gives). */
const cli = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> => runInProcess(args);

describe('frames', () => {
  it('reads links in every same-origin frame (srcdoc, about:blank, script-written, nested, <frame>) against the frame\'s base URL, and crawls frame sources', async () => {
    const other = keep(await startFixtureServer(() => ({ body: html('Widget', '<a href="/inside">Inside</a>') })));
    const s = keep(await startFramesSite(other.origin));
    const { recs, notices } = await run({ seeds: [`${s.origin}/dir/page`], concurrency: 2 });
    const home = recs.find((r) => r.url === `${s.origin}/dir/page`)!;
    expect(linkLines(home, s.origin)).toEqual(
      [
        'anchor /b/plain "Plain"',
        'anchor /frameset "Frameset"',
        // srcdoc and about:blank frames resolve against the parent's base URL (<base href="/b/">) ...
        'frame /b/from-srcdoc "Srcdoc"',
        'frame /b/ "Fragment"',
        'frame /b/from-nested-srcdoc "Nested srcdoc"',
        'frame /b/from-blank "Blank"',
        'frame /b/from-srcdoc-over-src "Over src"',
        // ... document.write gives the frame the parent's URL, not its <base> ...
        'frame /dir/from-written "Written"',
        'frame /dir/from-written-srcdoc "Written srcdoc"',
        // ... and a frame of a URL resolves against that URL.
        'frame /framed/sibling "Sibling"',
        'frame-src /framed/page "Framed page"',
        'frame-src /framed/inner "Inner"',
        'frame-src /framed/lazy ""',
        `frame-src ${other.origin}/widget ""`,
      ].sort(),
    );
    expect(home.linkSources).toEqual({ anchor: 2, frame: 8, 'frame-src': 4 });
    expect(home.frames).toEqual([`${other.origin}/widget`]);
    expect(home.externalLinks).toEqual([`${other.origin}/widget`]);
    expect(other.count('/inside')).toBe(0);
    // Frame sources are URLs of the crawl: each has its own record, with the page as referrer.
    expect(visited(recs)).toEqual(
      [
        '/dir/page',
        '/b/',
        '/b/plain',
        '/b/from-srcdoc',
        '/b/from-nested-srcdoc',
        '/b/from-blank',
        '/b/from-srcdoc-over-src',
        '/dir/from-written',
        '/dir/from-written-srcdoc',
        '/framed/page',
        '/framed/inner',
        '/framed/lazy',
        '/framed/sibling',
        '/frameset',
        '/fs/left',
        '/fs/right',
        '/fs/from-left',
      ].sort(),
    );
    expect(recs.find((r) => r.url === `${s.origin}/framed/lazy`)).toMatchObject({ status: 200, referrer: `${s.origin}/dir/page`, error: null });
    const frameset = recs.find((r) => r.url === `${s.origin}/frameset`)!;
    expect(linkLines(frameset, s.origin)).toEqual(['frame /fs/from-left "From left"', 'frame-src /fs/left ""', 'frame-src /fs/right ""']);
    // The src of a frame that has srcdoc is never loaded: not a link. An empty src is about:blank.
    expect(s.count('/framed/never')).toBe(0);
    expect(recs.every((r) => recordProblems(r).length === 0)).toBe(true);
    expect(recs.filter((r) => r.error !== null || r.consoleErrors.length || r.pageErrors.length || r.failedRequests.length)).toEqual([]);
    expect(JSON.stringify(recs)).not.toMatch(/about:|invalid url/i);
    expect(notices.filter((n) => /about:|invalid url|error/i.test(n))).toEqual([]);
  });

  it('reads links in frames of an opaque origin that the page wrote (sandboxed srcdoc, nested, data:); a sandboxed frame of a URL is listed and crawled', async () => {
    const s = keep(await startOpaqueFramesSite());
    const { recs } = await run({ seeds: [`${s.origin}/dir/page`], concurrency: 2 });
    const home = recs.find((r) => r.url === `${s.origin}/dir/page`)!;
    expect(linkLines(home, s.origin)).toEqual(
      [
        // srcdoc frames resolve against the parent's base URL, sandboxed or not.
        'frame /b/from-sandboxed "Sandboxed"',
        'frame /b/from-sandboxed-scripts "Sandboxed scripts"',
        'frame /b/from-sandboxed-nested "Sandboxed nested"',
        'frame /from-data "Data"',
        'frame-src /framed/sandboxed "Sandboxed page"',
      ].sort(),
    );
    expect(home.frames).toEqual([`${s.origin}/framed/sandboxed`]);
    expect(visited(recs)).toEqual(
      ['/dir/page', '/b/from-sandboxed', '/b/from-sandboxed-scripts', '/b/from-sandboxed-nested', '/from-data', '/framed/sandboxed', '/framed/sibling'].sort(),
    );
    for (const p of ['/b/from-sandboxed', '/b/from-sandboxed-nested', '/from-data']) expect(s.count(p)).toBe(1);
    expect(recs.filter((r) => r.error !== null || r.pageErrors.length || r.failedRequests.length)).toEqual([]);
  });

  it('says nothing about about:srcdoc, about:blank or invalid URLs on the command line', async () => {
    const other = keep(await startFixtureServer(() => ({ body: html('Widget', '') })));
    const s = keep(await startFramesSite(other.origin));
    const r = await cli(['crawl', `${s.origin}/dir/page`, '--max-depth', '0', '--no-soft404', '--click', 'off', '--no-progress']);
    expect(r.stderr).not.toMatch(/about:|invalid url|srcdoc/i);
    expect(r.stderr).toMatch(/^200 +\/dir\/page +13 links/m);
    expect(r.code).toBe(0);
  });
});

describe('every link a person can click', () => {
  it('finds SVG anchors (href and xlink:href), <area>, shadow roots (nested, declarative, closed), slotted and stamped links — and nothing that is not a navigation', async () => {
    const s = keep(await startLinkKindsSite());
    const { recs } = await run({ seeds: [`${s.origin}/`], concurrency: 2 });
    const home = recs.find((r) => r.url === `${s.origin}/`)!;
    expect(linkLines(home, s.origin)).toEqual(
      [
        'anchor /html-anchor "HTML anchor"',
        'anchor /svg-href "SVG href"',
        'anchor /svg-xlink "SVG xlink"',
        'anchor /area "Area"',
        'anchor /slotted "Slotted"',
        'anchor /stamped "Stamped"',
        'shadow /shadow "Shadow"',
        'shadow /nested-shadow "Nested shadow"',
        'shadow /declarative "Declarative"',
        'shadow /closed-shadow "Closed shadow"',
      ].sort(),
    );
    const pages = ['/', '/html-anchor', '/svg-href', '/svg-xlink', '/area', '/slotted', '/stamped', '/shadow', '/nested-shadow', '/declarative', '/closed-shadow'].sort();
    expect(visited(recs)).toEqual(pages);
    expect(recs.map((r) => rel(r.url, s.origin)).sort()).toEqual(pages);
    // Subresources are loaded as subresources, never as pages; the unstamped template and data: never.
    expect(s.documents().map((d) => d.path).sort()).toEqual(pages);
    expect(s.count('/never-stamped')).toBe(0);
  });

  it('finds links in closed declarative shadow roots (<template shadowrootmode="closed">), nested ones and those in a srcdoc frame', async () => {
    const s = keep(await startClosedDeclarativeSite());
    const { recs } = await run({ seeds: [`${s.origin}/`], concurrency: 2 });
    const home = recs.find((r) => r.url === `${s.origin}/`)!;
    expect(linkLines(home, s.origin)).toEqual(
      ['anchor /plain "Plain"', 'shadow /closed "Closed"', 'shadow /open-in-closed "Open in closed"', 'frame /in-frame-closed "In frame closed"'].sort(),
    );
    expect(visited(recs)).toEqual(['/', '/closed', '/in-frame-closed', '/open-in-closed', '/plain']);
    for (const p of ['/closed', '/open-in-closed', '/in-frame-closed']) expect(s.count(p)).toBe(1);
  });
});

describe('answers the browser does not render', () => {
  it('records the status the server sent with error null: bodiless 2xx, a 304, 3xx without Location, empty bodies, odd codes', async () => {
    const s = keep(await startStatusSite());
    const { recs } = await run({ seeds: [`${s.origin}/`], concurrency: 2 });
    const by = (p: string): PageRecord => recs.find((r) => r.url === `${s.origin}${p}`)!;
    const shape = (p: string): unknown => {
      const r = by(p);
      return { status: r.status, error: r.error, title: r.title, links: r.links, settled: r.settled, finalUrl: r.finalUrl && rel(r.finalUrl, s.origin), chain: r.redirectChain.map((h) => `${rel(h.url, s.origin)} ${h.status}`) };
    };
    const none = (status: number, p: string, chain: string[] = []): unknown => ({ status, error: null, title: null, links: [], settled: true, finalUrl: p, chain });
    expect(Object.fromEntries([...NO_CONTENT_PATHS, '/s599', '/s404-empty', '/s410-empty', '/s303-body'].map((p) => [p, shape(p)]))).toEqual({
      '/s204': none(204, '/s204'),
      '/s205': none(205, '/s205'),
      '/s304': none(304, '/s304'),
      '/s302-no-location': none(302, '/s302-no-location'),
      '/s300': none(300, '/s300'),
      '/s200-empty': none(200, '/s200-empty'),
      '/s201-empty': none(201, '/s201-empty'),
      '/s299': none(299, '/s299'),
      '/to-204': none(204, '/s204?via', ['/to-204 302']),
      '/to-304': none(304, '/s304?via', ['/to-304 302']),
      '/s599': none(599, '/s599'),
      '/s404-empty': none(404, '/s404-empty'),
      '/s410-empty': none(410, '/s410-empty'),
      '/s303-body': { status: 303, error: null, title: 'See other', links: [], settled: true, finalUrl: '/s303-body', chain: [] },
    });
    expect(recs.every((r) => r.attempts === 1 && r.consoleErrors.length === 0 && r.failedRequests.length === 0)).toBe(true);
    // A 2xx or 3xx with no content is not broken; the empty error statuses are.
    const findings = audit(recs)
      .issues.filter((i) => i.url !== `${s.origin}/`)
      .map((i) => `${i.rule} ${rel(i.url, s.origin)}`)
      .sort();
    expect(findings).toEqual(['broken-link /s404-empty', 'broken-link /s410-empty', 'broken-link /s599', 'missing-description /s303-body', 'server-error /s599']);
  });

  it('exits 0 for a site whose pages answer 2xx and 3xx without content, even with --fail-on-warnings', async () => {
    const s = keep(await startStatusSite());
    const r = await cli(['crawl', `${s.origin}/no-content`, '--json', '--fail-on-warnings', '--slow', '60000', '--no-progress', '--click', 'off']);
    const summary = JSON.parse(r.stdout) as { pages: number; ok: number; errors: number };
    expect({ code: r.code, pages: summary.pages, errors: summary.errors }).toEqual({ code: 0, pages: 1 + NO_CONTENT_PATHS.length, errors: 0 });
    expect(r.stderr).not.toMatch(/ERR_ABORTED|ERR_HTTP_RESPONSE_CODE_FAILURE|\bERR\b/);
  });
});
