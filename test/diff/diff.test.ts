import { describe, expect, it } from 'vitest';
import { diffCrawls } from '../../src/diff/diff.js';
import { DiffInputError } from '../../src/diff/errors.js';
import { failingFindings, parseFailOn } from '../../src/diff/findings.js';
import { memorySource } from '../../src/diff/source.js';
import { isEmptyDiff } from '../../src/diff/types.js';
import type { PageRecord } from '../../src/model/record.js';
import type { A11yAudit, A11yViolation } from '../../src/model/observation.js';
import { crawlA, crawlB, EXPECTED_NEW_FINDINGS, EXPECTED_UNCHANGED_FINDINGS, expectedUrlChanges, O, page, redirect, u } from './fixture-records.js';
import { identity, urlChanges } from './helpers.js';

const src = (label: string, records: PageRecord[]) => memorySource(label, records);
const diff = (a: PageRecord[], b: PageRecord[], opts = {}) => diffCrawls(src('a', a), src('b', b), opts);

describe('diffCrawls over two built crawls', () => {
  it('A → B reports exactly the known differences', async () => {
    const d = await diff(crawlA(), crawlB());
    expect(urlChanges(d)).toEqual(expectedUrlChanges(O));
    expect(d.findings.new.map(identity)).toEqual(EXPECTED_NEW_FINDINGS);
    expect(d.findings.fixed).toEqual([]);
    expect(d.findings.unchanged.map(identity)).toEqual(EXPECTED_UNCHANGED_FINDINGS);
    expect(d.findings.byRule).toEqual({ 'broken-link': { new: 2, fixed: 0, unchanged: 0 }, 'missing-description': { new: 0, fixed: 0, unchanged: 1 } });
    expect(d.findings.new.map((f) => [f.text, f.message])).toEqual([
      ['Guide', 'HTTP 404'],
      ['Summer promotion', 'soft 404: answers 200 but renders a "not found" screen'],
    ]);
    expect(d.old).toEqual({ source: 'a', records: 8, pages: 7, seeds: [u('/')] });
    expect(d.new).toEqual({ source: 'b', records: 8, pages: 7, seeds: [u('/')] });
    expect(isEmptyDiff(d)).toBe(false);
  });

  it('links found by a click moved to another page are not lost; anchor links and click links linked nowhere now are', async () => {
    // Click memory clicks the site-wide "Menu" on the first pages it meets: in crawl A that was
    // /a, in crawl B /b, so the menu's /m1 and /m2 sit on another page. /a also lost /gone (a
    // click link no page links to now) and /x (an anchor, still linked from /b): both are lost.
    const byClick = (r: PageRecord, ...paths: string[]): PageRecord => ({
      ...r,
      links: [...r.links, ...paths.map(u)],
      linkDetails: [...r.linkDetails, ...paths.map((lp) => ({ url: u(lp), text: 'menu', source: 'click' as const, nofollow: false }))],
    });
    const home = page('/', 'Home', [['/a', 'A'], ['/b', 'B']]);
    const older = [home, byClick(page('/a', 'A', [['/x', 'X']]), '/m1', '/m2', '/gone'), page('/b', 'B')];
    const newer = [home, page('/a', 'A'), byClick(page('/b', 'B', [['/x', 'X']]), '/m1', '/m2')];
    const d = await diff(older, newer);
    expect(d.lostLinks).toEqual([{ url: u('/a'), links: [u('/x'), u('/gone')] }]);
    // The same pages without the click source: every link that left /a is lost.
    const asAnchors = (r: PageRecord): PageRecord => ({ ...r, linkDetails: r.linkDetails.map((l) => ({ ...l, source: 'anchor' as const })) });
    const plain = await diff(older.map(asAnchors), newer.map(asAnchors));
    expect(plain.lostLinks).toEqual([{ url: u('/a'), links: [u('/x'), u('/m1'), u('/m2'), u('/gone')] }]);
  });

  it('A → A reports nothing, and B → A reports the same changes the other way round', async () => {
    const same = await diff(crawlA(), crawlA());
    expect(isEmptyDiff(same)).toBe(true);
    expect(same.findings.unchanged.map(identity)).toEqual(EXPECTED_UNCHANGED_FINDINGS);
    const back = await diff(crawlB(), crawlA());
    expect(back.pages.added.map((p) => p.url)).toEqual([u('/old')]);
    expect(back.pages.removed.map((p) => p.url)).toEqual([u('/news')]);
    expect(back.findings.new).toEqual([]);
    expect(back.findings.fixed.map(identity)).toEqual(EXPECTED_NEW_FINDINGS);
    expect(back.soft404s).toEqual([]);
  });

  it('--fail-on: broken-link fails A → B only; none never; warnings counts errors and warnings, not notices', async () => {
    const ab = await diff(crawlA(), crawlB());
    const aa = await diff(crawlA(), crawlA());
    const ba = await diff(crawlB(), crawlA());
    expect(failingFindings(ab, parseFailOn('broken-link')).length).toBe(2);
    expect(failingFindings(aa, parseFailOn('broken-link')).length).toBe(0);
    expect(failingFindings(ba, parseFailOn('broken-link')).length).toBe(0);
    expect(failingFindings(ab, parseFailOn('js-error,server-error')).length).toBe(0);
    expect(failingFindings(ab, parseFailOn('none')).length).toBe(0);
    expect(failingFindings(ab, parseFailOn('warnings')).length).toBe(2);
    // A new notice (no description on /news) does not fail under warnings.
    const b = crawlB().map((r) => (r.url === u('/news') ? { ...r, meta: { ...r.meta, description: null } } : r));
    const withNotice = await diff(crawlA(), b);
    expect(withNotice.findings.new.map(identity)).toContain('missing-description /news → /news');
    expect(failingFindings(withNotice, ['warnings']).length).toBe(2);
    expect(failingFindings(withNotice, ['missing-description']).length).toBe(1);
    const words = ': expected rule ids (spacrawl rules lists them), warnings, none, new or new:RULE';
    expect(() => parseFailOn('broken-link,nonsense')).toThrow(`unknown --fail-on rule "nonsense"${words}`);
    // A typo names the rule it is near; something far from every rule names none.
    expect(() => parseFailOn('brokenlink')).toThrow(`unknown --fail-on rule "brokenlink" (did you mean "broken-link"?)${words}`);
    expect(() => parseFailOn('warning')).toThrow(`unknown --fail-on rule "warning" (did you mean "warnings"?)${words}`);
  });

  it('--ignore-url: a new finding on an ignored URL is reported as ignored and never fails', async () => {
    const d = await diff(crawlA(), crawlB(), { ignore: [/\/guide$/] });
    expect(d.findings.new.map((f) => [identity(f), f.ignored])).toEqual([
      ['broken-link /about → /guide', true],
      ['broken-link / → /promo', false],
    ]);
    expect(failingFindings(d, ['broken-link']).map(identity)).toEqual(['broken-link / → /promo']);
  });
});

describe('finding identity: rule + page + target, never the message', () => {
  it('a page rule whose message changed is unchanged; a second issue of the rule on the page is still one finding', async () => {
    const a = [page('/', 'Home', [], { pageErrors: ['TypeError: x is undefined\n    at app.js:10:5'] })];
    const b = [page('/', 'Home', [], { pageErrors: ['TypeError: x is undefined\n    at app.js:12:7', 'ReferenceError: y'] })];
    const d = await diff(a, b);
    expect(d.findings.new).toEqual([]);
    expect(d.findings.fixed).toEqual([]);
    expect(d.findings.unchanged.map((f) => [identity(f), f.count, f.message])).toEqual([['js-error / → /', 2, 'TypeError: x is undefined\n    at app.js:12:7']]);
  });

  it('a11y findings are one per axe rule and state: a new failing axe rule on a page that already fails another rule of the same impact is new', async () => {
    const v = (rule: string, state: string | null = null): A11yViolation => ({ rule, impact: 'serious', help: `${rule} help`, helpUrl: '', nodes: 1, targets: ['#x'], state });
    // Both crawls checked the menu's state (a state only one of them checked is not compared: see checks.test.ts).
    const a11y = (violations: A11yViolation[]): A11yAudit => ({ engine: 'axe-core 4.13.0', tags: ['wcag2a'], violations, states: ['after clicking "Menu" (button) on /'], error: null });
    const a = [page('/', 'Home', [], { a11y: a11y([v('nested-interactive')]) })];
    const b = [page('/', 'Home', [], { a11y: a11y([v('nested-interactive'), v('target-size'), v('target-size', 'after clicking "Menu" (button) on /')]) })];
    const d = await diff(a, b);
    expect(d.findings.new.map((f) => [f.rule, f.subject])).toEqual([
      ['a11y-serious', 'target-size'],
      ['a11y-serious', 'target-size after clicking "Menu" (button) on /'],
    ]);
    expect(d.findings.unchanged.map((f) => [f.rule, f.subject])).toEqual([['a11y-serious', 'nested-interactive']]);
    expect(failingFindings(d, parseFailOn('a11y-serious')).length).toBe(2);
    const back = await diff(b, a);
    expect(back.findings.fixed.map((f) => f.subject).sort()).toEqual(['target-size', 'target-size after clicking "Menu" (button) on /']);
  });

  it('a broken link is one finding per referrer page: a new page linking to a known broken target is one new finding', async () => {
    const broken = { ...page('/gone', 'Gone', [], { status: 404 }), depth: 1 };
    const a = [page('/', 'Home', [['/gone', 'Gone']]), broken];
    const b = [page('/', 'Home', [['/gone', 'Gone'], ['/more', 'More']]), page('/more', 'More', [['/gone', 'gone again']]), broken];
    const d = await diff(a, b);
    expect(d.findings.new.map((f) => [identity(f), f.text])).toEqual([['broken-link /more → /gone', 'gone again']]);
    expect(d.findings.unchanged.map(identity)).toEqual(['broken-link / → /gone']);
  });

  it('a broken seed (no referrer) is matched with page null', async () => {
    const d = await diff([page('/', 'Home', [], { status: 500 })], [page('/', 'Home', [], { status: 503 })]);
    expect(d.findings.unchanged.map(identity)).toEqual(['broken-link (none) → /', 'server-error / → /']);
    expect(d.statusChanges.map((s) => [s.old.status, s.new.status])).toEqual([[500, 503]]);
  });
});

describe('URL changes beyond the fixture', () => {
  it('a page that became a redirect record is a status change with its own status and a redirect change, not a removed page', async () => {
    const a = [page('/', 'Home', [['/x', 'X'], ['/y', 'Y']]), page('/x', 'X'), page('/y', 'Y')];
    const b = [page('/', 'Home', [['/x', 'X'], ['/y', 'Y']]), redirect('/x', '/y', 308), page('/y', 'Y')];
    const d = await diff(a, b);
    expect(d.pages).toEqual({ added: [], removed: [] });
    expect(d.statusChanges).toEqual([{ url: u('/x'), old: { status: 200, error: null, redirect: false }, new: { status: 308, error: null, redirect: true } }]);
    expect(d.redirectChanges).toEqual([{ url: u('/x'), old: null, new: u('/y') }]);
  });

  it('a page skipped in the new crawl is removed, with why; a page that now times out is a status change', async () => {
    const skipped = { ...page('/private', 'Private'), skipped: 'robots' as const, status: null, finalUrl: null, title: null, attempts: 0 };
    const timeout = { ...page('/slow', 'Slow'), status: null, title: null, error: { code: 'timeout', message: 'navigation timed out' } };
    const a = [page('/', 'Home'), page('/private', 'Private'), page('/slow', 'Slow')];
    const b = [page('/', 'Home'), skipped, timeout];
    const d = await diff(a, b);
    expect(d.pages.removed).toEqual([{ url: u('/private'), status: 200, error: null, title: 'Private', otherSkipped: 'robots' }]);
    expect(d.statusChanges).toEqual([{ url: u('/slow'), old: { status: 200, error: null, redirect: false }, new: { status: null, error: 'timeout', redirect: false } }]);
    expect(d.titleChanges).toEqual([]);
  });

  it('timings: only changes beyond both thresholds count; web vitals when both crawls have them', async () => {
    const t = (total: number | null, serverWaitMs: number | null) => ({ ttfb: 1, domContentLoaded: 2, load: 3, settledMs: 4, lastChangeMs: 3, serverWaitMs, total });
    const withVitals = (r: PageRecord, vitals: Record<string, unknown>): PageRecord => ({ ...r, vitals }) as unknown as PageRecord;
    const a = [
      page('/', 'Home', [], { timings: t(300, 50) }),
      page('/p1', 'P1', [], { timings: t(300, 50) }),
      page('/p2', 'P2', [], { timings: t(3000, 50) }),
      page('/p3', 'P3', [], { timings: t(null, 100) }),
      withVitals(page('/v', 'V'), { lcp: 1000, cls: 0.05, inp: 'n/a' }),
      page('/nov', 'No vitals'),
    ];
    const b = [
      page('/', 'Home', [], { timings: t(1500, 50) }), // +1200 ms, +400 %: counts
      page('/p1', 'P1', [], { timings: t(1200, 50) }), // +900 ms: below 1000 ms
      page('/p2', 'P2', [], { timings: t(4200, 50) }), // +1200 ms but +40 %: below 50 %
      page('/p3', 'P3', [], { timings: t(9000, 1600) }), // no old total; serverWaitMs +1500 ms: counts
      withVitals(page('/v', 'V'), { lcp: 2500, cls: 0.3, inp: 'n/a' }),
      withVitals(page('/nov', 'No vitals'), { lcp: 9000 }),
    ];
    const d = await diff(a, b);
    expect(d.timingChanges).toEqual([
      { url: u('/p3'), metric: 'serverWaitMs', old: 100, new: 1600, delta: 1500 },
      { url: u('/v'), metric: 'vitals.lcp', old: 1000, new: 2500, delta: 1500 },
      { url: u('/'), metric: 'total', old: 300, new: 1500, delta: 1200 },
      { url: u('/v'), metric: 'vitals.cls', old: 0.05, new: 0.3, delta: 0.25 },
    ]);
    const strict = await diff(a, b, { thresholdMs: 100, thresholdRatio: 0.1 });
    expect(strict.timingChanges.map((c) => `${c.metric} ${c.url.slice(O.length)}`).sort()).toEqual(
      ['serverWaitMs /p3', 'total /', 'total /p1', 'total /p2', 'vitals.cls /v', 'vitals.lcp /v'].sort(),
    );
  });
});

describe('refusals', () => {
  it('two crawls of different sites are refused unless force, and then share no URL', async () => {
    const other = crawlB().map((r) => JSON.parse(JSON.stringify(r).replaceAll(O, 'https://other.test')) as PageRecord);
    const err = await diff(crawlA(), other).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiffInputError);
    expect((err as DiffInputError).code).toBe('different-sites');
    expect((err as Error).message).toBe('a and b are crawls of different sites (https://site.test vs https://other.test): if it is the same site on another origin, pass --map-origin https://site.test=https://other.test; else --force to compare them anyway');
    const forced = await diff(crawlA(), other, { force: true });
    expect(forced.pages.removed).toHaveLength(7);
    expect(forced.pages.added).toHaveLength(7);
  });

  it('a crawl with no record is refused', async () => {
    const err = await diff(crawlA(), []).catch((e: unknown) => e);
    expect((err as DiffInputError).code).toBe('not-a-crawl');
    expect((err as Error).message).toBe('b is not a crawl: it holds no record');
  });
});
