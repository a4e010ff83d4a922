import { describe, expect, it } from 'vitest';
import { uncomparedText } from '../../src/diff/checks.js';
import { diffCrawls } from '../../src/diff/diff.js';
import { failingFindings, parseGateFailOn } from '../../src/diff/findings.js';
import { memorySource } from '../../src/diff/source.js';
import { isEmptyDiff } from '../../src/diff/types.js';
import { blankRecord, type PageRecord } from '../../src/model/record.js';
import type { A11yAudit, PageVitals, ServerHtml } from '../../src/model/observation.js';
import { parseBudget } from '../../src/report/budget.js';
import { page, u } from './fixture-records.js';
import { identity } from './helpers.js';

const a11y: A11yAudit = {
  engine: 'axe-core 4.13.0',
  tags: ['wcag2a'],
  violations: [{ rule: 'color-contrast', impact: 'serious', help: 'contrast', helpUrl: '', nodes: 1, targets: ['#x'], state: null }],
  states: [],
  error: null,
};
const clean: A11yAudit = { ...a11y, violations: [] };
const vitals: PageVitals = { lcp: 5000, cls: 0, tbt: 0, fcp: 900, ttfb: 50, transferBytes: 1000, requests: 3, alone: true, throttle: 'none' };
const serverHtml: ServerHtml = { title: null, links: 0, textLength: 0, renderedLinks: 0, renderedTextLength: 0, jsOnlyLinks: 0, jsOnlyLinkSamples: [], bytes: 100, truncated: false };
const EXT = 'https://elsewhere.test/gone';

/**
 * A crawl with every optional check on: an a11y violation and an LCP over budget on `/`, an
 * off-site broken link and a broken fragment link from `/`, no server-side title on `/`; and an
 * in-scope broken link (`/` → `/missing`), which every crawl checks.
 */
function withChecks(): PageRecord[] {
  return [
    page('/', 'Home', [['/doc', 'Doc'], ['/missing', 'Missing']], {
      a11y,
      vitals,
      serverHtml,
      externalLinks: [EXT],
      linkDetails: [
        { url: u('/doc'), text: 'Doc', source: 'anchor', nofollow: false },
        { url: u('/missing'), text: 'Missing', source: 'anchor', nofollow: false },
        { url: EXT, text: 'Gone', source: 'anchor', nofollow: false },
      ],
      linkChecks: [{ url: EXT, kind: 'link', method: 'GET', status: 404, blockedBy: null, error: null }],
      fragmentLinks: [{ url: u('/doc'), fragment: 'nowhere', text: 'Doc' }],
      anchors: [],
    }),
    page('/doc', 'Doc', [], { a11y: clean, vitals: { ...vitals, lcp: 100 }, serverHtml: { ...serverHtml, title: 'Doc' }, anchors: ['top'] }),
    { ...page('/missing', 'Not found', [], { status: 404 }), depth: 1 },
  ];
}

/**
 * The same site crawled without any optional check, by a spacrawl from before the server-HTML
 * comparison (its records have no `serverHtml` field), the in-scope broken link fixed.
 */
function withoutChecks(): PageRecord[] {
  return withChecks()
    .filter((r) => r.url !== u('/missing'))
    .map((r) => {
      const { serverHtml: _older, ...rest } = {
        ...r,
        a11y: null,
        vitals: null,
        linkChecks: [],
        fragmentLinks: [],
        anchors: null,
        links: r.links.filter((l) => l !== u('/missing')),
        linkDetails: r.linkDetails.filter((l) => l.url !== u('/missing')),
      };
      return rest as unknown as PageRecord;
    });
}

/** Version checks both crawls here made (their records have the fields). */
const ALWAYS = ['meta', 'spa', 'server-wait', 'mixed-content'];

const budget = parseBudget('lcp=2500');
const diff = (a: PageRecord[], b: PageRecord[]) => diffCrawls(memorySource('a', a), memorySource('b', b), { budget });

const NOT_COMPARED = [
  'budget / → /',
  'broken-fragment / → /doc', // the target's fragment: /doc#nowhere
  'a11y-serious / → /',
  'broken-link / → /gone', // https://elsewhere.test/gone
  'js-only-title / → /',
];

describe('records of an older spacrawl, without the fields of later checks', () => {
  it('content findings of a baseline without meta, spa, serverWaitMs or mixedContent are not compared: never new, fixed or unchanged', async () => {
    const older = (r: PageRecord): PageRecord => {
      const { meta: _m, spa: _s, mixedContent: _x, serverHtml: _h, ...rest } = r;
      const { serverWaitMs: _w, ...timings } = r.timings;
      return { ...rest, timings } as unknown as PageRecord;
    };
    const now = [page('/', 'Home', [], { meta: { description: null, canonical: null, h1Count: 2 }, timings: { ...page('/', 'Home').timings, serverWaitMs: 9000 } })];
    const d = await diffCrawls(memorySource('old', now.map(older)), memorySource('new', now));
    expect(d.checks.old).toEqual([]);
    // missing-h1 is the old records' (no meta read as no h1): not fixed either. missing-description stands on both sides: listed once.
    expect(d.findings.notCompared.map((f) => f.rule).sort()).toEqual(['missing-description', 'missing-h1', 'multiple-h1', 'slow-page']);
    expect(d.findings.unchanged).toEqual([]);
    expect([d.findings.new, d.findings.fixed]).toEqual([[], []]);
    expect(d.checks.uncompared.map(uncomparedText)).toEqual([
      "server-html check ran only in NEW: OLD's records have no serverHtml (an older spacrawl) (0 findings not compared)",
      "meta check ran only in NEW: OLD's records have no meta (an older spacrawl) (3 findings not compared)",
      "spa check ran only in NEW: OLD's records have no spa (an older spacrawl) (0 findings not compared)",
      "server-wait check ran only in NEW: OLD's records have no timings.serverWaitMs (an older spacrawl) (1 finding not compared)",
      "mixed-content check ran only in NEW: OLD's records have no mixedContent (an older spacrawl) (0 findings not compared)",
    ]);
  });
});

describe('optional checks that ran in one crawl only', () => {
  it('their findings in the baseline are "not compared", never fixed; an always-on rule is still fixed', async () => {
    const d = await diff(withChecks(), withoutChecks());
    expect(d.checks).toEqual({
      old: ['a11y', 'vitals', 'check-external', 'check-fragments', 'server-html', ...ALWAYS],
      new: ALWAYS,
      uncompared: [
        { check: 'a11y', ranIn: 'old', findings: 1 },
        { check: 'vitals', ranIn: 'old', findings: 1 },
        { check: 'check-external', ranIn: 'old', findings: 1 },
        { check: 'check-fragments', ranIn: 'old', findings: 1 },
        { check: 'server-html', ranIn: 'old', findings: 1 },
      ],
    });
    expect(d.checks.uncompared.map(uncomparedText).at(-1)).toBe("server-html check ran only in OLD: NEW's records have no serverHtml (an older spacrawl) (1 finding not compared)");
    expect(d.findings.notCompared.map(identity).sort()).toEqual([...NOT_COMPARED].sort());
    expect(d.findings.fixed.map(identity)).toEqual(['broken-link / → /missing']);
    expect(d.findings.new).toEqual([]);
    expect(Object.keys(d.findings.byRule)).toEqual(['broken-link']);
  });

  it('in the other direction their findings are "not compared", never new, and never fail --fail-on new', async () => {
    const d = await diff(withoutChecks(), withChecks());
    expect(d.checks.uncompared.map((x) => [x.check, x.ranIn, x.findings])).toEqual([
      ['a11y', 'new', 1],
      ['vitals', 'new', 1],
      ['check-external', 'new', 1],
      ['check-fragments', 'new', 1],
      ['server-html', 'new', 1],
    ]);
    expect(d.findings.notCompared.map(identity).sort()).toEqual([...NOT_COMPARED].sort());
    expect(d.findings.new.map(identity)).toEqual(['broken-link / → /missing']);
    expect(failingFindings(d, parseGateFailOn('new:a11y-serious,new:budget,new:broken-fragment', true).rules)).toEqual([]);
  });

  it('when both crawls ran the checks, their findings are new, fixed or unchanged as usual', async () => {
    const same = await diff(withChecks(), withChecks());
    expect(isEmptyDiff(same)).toBe(true);
    expect(same.checks.uncompared).toEqual([]);
    expect(same.findings.notCompared).toEqual([]);
    expect(same.findings.unchanged.map(identity).sort()).toEqual([...NOT_COMPARED, 'broken-link / → /missing'].sort());
    // Both ran, the violations gone in the newer crawl: fixed.
    const repaired = withChecks().map((r) => (r.a11y ? { ...r, a11y: clean, vitals: { ...vitals, lcp: 100 } } : r));
    const d = await diff(withChecks(), repaired);
    expect(d.findings.fixed.map(identity).sort()).toEqual(['a11y-serious / → /', 'budget / → /']);
    expect(d.findings.notCompared).toEqual([]);
  });
});

describe('pages one crawl left for its page budget', () => {
  /**
   * A full crawl: `/a` has no description (a page rule) and links to `/gone` (404, a link rule
   * from `/a`); `/b` has no description too, in both crawls.
   */
  const full = (): PageRecord[] => [
    page('/', 'Home', [['/a', 'A'], ['/b', 'B']]),
    page('/a', 'A', [['/gone', 'Gone']], { meta: { description: null, canonical: null, h1Count: 1 } }),
    page('/b', 'B', [], { meta: { description: null, canonical: null, h1Count: 1 } }),
    { ...page('/gone', 'Not found'), status: 404, referrer: u('/a') },
  ];
  /** The same site with a budget of 2 pages: `/a` was found but not visited (so `/gone` never was). */
  const budgeted = (): PageRecord[] => {
    const [home, , b] = full();
    return [home!, b!, { ...blankRecord(u('/a'), u('/a'), 1, u('/')), skipped: 'budget' }];
  };

  it('their findings are "not compared", neither fixed nor new, whichever crawl is the baseline; a note says how many and why', async () => {
    const shrunk = await diffCrawls(memorySource('FULL', full()), memorySource('SMALL', budgeted()));
    expect(shrunk.findings.fixed).toEqual([]);
    expect(shrunk.findings.notCompared.map(identity).sort()).toEqual(['broken-link /a → /gone', 'missing-description /a → /a']);
    expect(shrunk.findings.unchanged.map(identity)).toEqual(['missing-description /b → /b']);
    expect(shrunk.notices).toContain("findings not compared, neither new nor fixed: 2 of FULL's (SMALL left their pages for its page budget)");
    const grown = await diffCrawls(memorySource('SMALL', budgeted()), memorySource('FULL', full()));
    expect(grown.findings.new).toEqual([]);
    expect(grown.findings.notCompared.map(identity).sort()).toEqual(['broken-link /a → /gone', 'missing-description /a → /a']);
    expect(failingFindings(grown, parseGateFailOn('new', true).rules)).toEqual([]);
  });

  it('a page both crawls visited is compared as usual: its finding gone is fixed', async () => {
    const repaired = full().map((r) => (r.url === u('/b') ? page('/b', 'B') : r));
    const d = await diffCrawls(memorySource('OLD', full()), memorySource('NEW', repaired));
    expect(d.findings.fixed.map(identity)).toEqual(['missing-description /b → /b']);
    expect(d.findings.notCompared).toEqual([]);
    expect(d.notices.filter((n) => n.includes('page budget'))).toEqual([]);
  });
});

describe('errors raised by click discovery', () => {
  const SKIP = { chrome: 0, template: 0, budget: 0, limit: 0, restore: 0 };
  const SWIFT = 'menuitemcheckbox|Swift|menu';
  /**
   * `/a` and `/b` carry the same sample-language menu; one crawl learns it on `/a`, where choosing
   * Swift raises a TypeError and a console error; the other learns it on `/b`, where it does not.
   * `/b` also has an error of its own as loaded, in both crawls.
   */
  const crawl = (learnedOn: '/a' | '/b', raises = true): PageRecord[] => [
    page('/', 'Home', [['/a', 'A'], ['/b', 'B']]),
    page('/a', 'A', [], {
      clickDiscovery:
        learnedOn === '/a'
          ? { made: 2, skipped: SKIP, clicked: [SWIFT], errors: raises ? [{ control: SWIFT, kind: 'page', message: "TypeError: x is undefined (at convert (app.js:2:10))" }, { control: SWIFT, kind: 'console', message: 'sample failed' }] : [] }
          : { made: 0, skipped: { ...SKIP, chrome: 1 }, clicked: [], errors: [] },
    }),
    page('/b', 'B', [], {
      pageErrors: ['Error: boot (at main.js:1:1)'],
      clickDiscovery: learnedOn === '/b' ? { made: 2, skipped: SKIP, clicked: [SWIFT], errors: [] } : { made: 0, skipped: { ...SKIP, chrome: 1 }, clicked: [], errors: [] },
    }),
  ];
  const subjects = (fs: readonly { rule: string; page: string | null; subject?: string }[]): string[] => fs.map((f) => `${f.rule} ${f.page === null ? '-' : new URL(f.page).pathname} ${f.subject ?? '(as loaded)'}`).sort();

  it('are findings of their own, per control, apart from the page as loaded', async () => {
    const d = await diffCrawls(memorySource('OLD', crawl('/a')), memorySource('NEW', crawl('/a')));
    expect(subjects(d.findings.unchanged)).toEqual([
      'console-error /a after working "Swift" (menuitemcheckbox in menu)',
      'js-error /a after working "Swift" (menuitemcheckbox in menu)',
      'js-error /b (as loaded)',
    ]);
  });

  it('are not compared where the other crawl did not work that control on the page: never new, never fixed, a note says so', async () => {
    const moved = await diffCrawls(memorySource('OLD', crawl('/b')), memorySource('NEW', crawl('/a')));
    expect(moved.findings.new).toEqual([]);
    expect(subjects(moved.findings.notCompared)).toEqual(['console-error /a after working "Swift" (menuitemcheckbox in menu)', 'js-error /a after working "Swift" (menuitemcheckbox in menu)']);
    expect(failingFindings(moved, parseGateFailOn('new', true).rules)).toEqual([]);
    expect(moved.notices).toContain("findings not compared, neither new nor fixed: 2 of NEW's (found after clicks OLD did not make on that page)");
    const back = await diffCrawls(memorySource('OLD', crawl('/a')), memorySource('NEW', crawl('/b')));
    expect(back.findings.fixed).toEqual([]);
    expect(subjects(back.findings.notCompared)).toHaveLength(2);
    // The page's own error as loaded is compared as always.
    expect(subjects(back.findings.unchanged)).toEqual(['js-error /b (as loaded)']);
  });

  it('are new where both crawls worked the control on the page and only the newer one raised them, fixed the other way', async () => {
    const d = await diffCrawls(memorySource('OLD', crawl('/a', false)), memorySource('NEW', crawl('/a')));
    expect(subjects(d.findings.new)).toEqual(['console-error /a after working "Swift" (menuitemcheckbox in menu)', 'js-error /a after working "Swift" (menuitemcheckbox in menu)']);
    expect(failingFindings(d, parseGateFailOn('new', true).rules).map((f) => f.rule).sort()).toEqual(['console-error', 'js-error']);
    const f = await diffCrawls(memorySource('OLD', crawl('/a')), memorySource('NEW', crawl('/a', false)));
    expect(subjects(f.findings.fixed)).toHaveLength(2);
    expect(f.findings.notCompared).toEqual([]);
  });

  it('against records that do not say which controls were clicked (an older version), are not compared', async () => {
    const older = crawl('/a', false).map((r) => (r.clickDiscovery ? { ...r, clickDiscovery: { made: r.clickDiscovery.made, skipped: r.clickDiscovery.skipped } } : r));
    const d = await diffCrawls(memorySource('OLD', older), memorySource('NEW', crawl('/a')));
    expect(d.findings.new).toEqual([]);
    expect(subjects(d.findings.notCompared)).toHaveLength(2);
  });
});

describe('accessibility findings in states clicks revealed', () => {
  const STATE = 'after clicking "Menu" (button) on /a';
  const menu: A11yAudit = { ...a11y, violations: [{ ...a11y.violations[0]!, rule: 'label', state: STATE }], states: [STATE] };
  const none: A11yAudit = { ...a11y, violations: [], states: [] };
  const crawl = (onA: A11yAudit): PageRecord[] => [page('/', 'Home', [['/a', 'A']], { a11y: none }), page('/a', 'A', [], { a11y: onA })];

  it('are compared only where the other crawl checked that state on the page', async () => {
    const unchecked = await diffCrawls(memorySource('OLD', crawl(none)), memorySource('NEW', crawl(menu)));
    expect(unchecked.findings.new).toEqual([]);
    expect(unchecked.findings.notCompared.map(identity)).toEqual(['a11y-serious /a → /a']);
    expect(unchecked.notices).toContain("findings not compared, neither new nor fixed: 1 of NEW's (found after clicks OLD did not make on that page)");
    const checked = await diffCrawls(memorySource('OLD', crawl({ ...none, states: [STATE] })), memorySource('NEW', crawl(menu)));
    expect(checked.findings.new.map(identity)).toEqual(['a11y-serious /a → /a']);
    expect(checked.findings.notCompared).toEqual([]);
  });
});
