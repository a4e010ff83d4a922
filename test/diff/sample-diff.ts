import type { CrawlDiff, Finding } from '../../src/diff/types.js';

const O = 'https://site.test';
const u = (p: string): string => `${O}${p}`;

function finding(patch: Partial<Finding> & Pick<Finding, 'rule' | 'severity' | 'url'>): Finding {
  return { page: patch.url, text: '', message: 'a message', count: 1, ignored: false, ...patch };
}

/**
 * A hand-made diff with one item of every kind, and page text that must be escaped (markdown,
 * HTML, XML, a GitHub mention): the input of the format golden tests, independent of
 * `diffCrawls`.
 */
export function sampleDiff(): CrawlDiff {
  return {
    schemaVersion: 1,
    old: { source: 'old/pages.jsonl', records: 8, pages: 7, seeds: [u('/')] },
    new: { source: 'new/pages.jsonl', records: 8, pages: 7, seeds: [u('/')] },
    thresholds: { ms: 1000, ratio: 0.5 },
    pages: {
      added: [{ url: u('/news'), status: 200, error: null, title: 'News & <b>updates</b>', otherSkipped: null }],
      removed: [
        { url: u('/old'), status: 200, error: null, title: 'Old page', otherSkipped: null },
        { url: u('/private'), status: 200, error: null, title: 'Private', otherSkipped: 'robots' },
      ],
    },
    statusChanges: [
      { url: u('/guide'), old: { status: 200, error: null, redirect: false }, new: { status: 404, error: null, redirect: false } },
      { url: u('/moved'), old: { status: 200, error: null, redirect: false }, new: { status: 301, error: null, redirect: true } },
    ],
    titleChanges: [{ url: u('/about'), old: 'About', new: 'About *us* @octocat' }],
    redirectChanges: [{ url: u('/go'), old: u('/docs/a'), new: u('/docs/b') }],
    soft404s: [{ url: u('/promo'), reason: 'not-found-heading' }],
    lostLinks: [{ url: u('/'), links: [u('/old'), u('/private')] }],
    timingChanges: [
      { url: u('/slow'), metric: 'total', old: 300, new: 1800, delta: 1500 },
      { url: u('/shift'), metric: 'vitals.cls', old: 0.05, new: 0.3, delta: 0.25 },
    ],
    checks: { old: ['a11y', 'server-html'], new: ['server-html'], uncompared: [{ check: 'a11y', ranIn: 'old', findings: 1 }] },
    visual: {
      threshold: 0.001,
      compared: 6,
      missing: 1,
      missingFiles: ['/shots/old/blog.png'],
      changes: [
        { url: u('/docs/a'), ratio: 0.0231, changedPixels: 23_654, width: 1280, height: 800, sizeChanged: false, old: '/shots/old/docs-a.png', new: '/shots/new/docs-a.png', diff: '/shots/diff/docs-a.png' },
      ],
    },
    findings: {
      new: [
        finding({ rule: 'broken-link', severity: 'error', url: u('/guide'), page: u('/about'), text: 'Guide', message: 'HTTP 404' }),
        finding({ rule: 'broken-link', severity: 'error', url: u('/promo'), page: u('/'), text: 'Summer <promo>', message: 'soft 404: answers 200 but renders a "not found" screen' }),
        finding({ rule: 'js-error', severity: 'error', url: u('/app'), message: 'TypeError: x is undefined\n    at app.js:1:2' }),
        finding({ rule: 'visual-change', severity: 'warning', url: u('/docs/a'), message: '2.31 % of pixels changed (23,654 of 1,024,000)' }),
        finding({ rule: 'missing-description', severity: 'notice', url: u('/news'), message: 'no <meta name="description">' }),
        finding({ rule: 'broken-link', severity: 'error', url: u('/ads'), page: u('/'), text: 'Ads', message: 'HTTP 410', ignored: true }),
      ],
      fixed: [finding({ rule: 'missing-h1', severity: 'notice', url: u('/old'), message: 'no <h1>' })],
      unchanged: [finding({ rule: 'missing-description', severity: 'notice', url: u('/docs/b'), message: 'no <meta name="description">' })],
      notCompared: [finding({ rule: 'a11y-serious', severity: 'warning', url: u('/'), message: 'color-contrast: Elements must meet minimum color contrast ratio thresholds — 2 elements (#a, #b)', subject: 'color-contrast' })],
      byRule: {
        'broken-link': { new: 3, fixed: 0, unchanged: 0 },
        'js-error': { new: 1, fixed: 0, unchanged: 0 },
        'missing-description': { new: 1, fixed: 0, unchanged: 1 },
        'missing-h1': { new: 0, fixed: 1, unchanged: 0 },
        'visual-change': { new: 1, fixed: 0, unchanged: 0 },
      },
    },
    notices: ['1 screenshot named in the records could not be read, those pages not compared: /shots/old/blog.png'],
  };
}

/** A diff of a crawl with itself: nothing changed, one finding in both. */
export function emptyDiff(): CrawlDiff {
  const d = sampleDiff();
  return {
    ...d,
    new: { ...d.old },
    pages: { added: [], removed: [] },
    statusChanges: [],
    titleChanges: [],
    redirectChanges: [],
    soft404s: [],
    lostLinks: [],
    timingChanges: [],
    checks: { old: ['server-html'], new: ['server-html'], uncompared: [] },
    visual: { threshold: 0.001, compared: 7, missing: 0, changes: [] },
    findings: { new: [], fixed: [], unchanged: d.findings.unchanged, notCompared: [], byRule: { 'missing-description': { new: 0, fixed: 0, unchanged: 1 } } },
    notices: [],
  };
}
