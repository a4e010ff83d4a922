import { blankRecord, type LinkDetail, type PageRecord } from '../../src/model/record.js';
import { emptyTimings } from '../../src/model/observation.js';

// The records the report tests are made from: one of every kind of page, link and finding.

export const O = 'https://site.test';
export const u = (p: string): string => `${O}${p}`;
export const HTML = 'text/html; charset=utf-8';
export const TRICKY_TITLE = 'About, "us" <b>bold</b>\nsecond line';
export const XSS_TITLE = '<script>alert(1)</script> | @octocat *and* a title long enough to pass sixty characters';
export const FORMULA_TITLE = '=HYPERLINK("https://evil.test","click")';

/** A visited HTML page that passes every content rule unless `patch` says otherwise. */
export function page(p: string, patch: Partial<PageRecord> = {}, referrer: string | null = '/'): PageRecord {
  const r = blankRecord(u(p), u(p), referrer === null ? 0 : 1, referrer === null ? null : u(referrer));
  return {
    ...r,
    finalUrl: u(p),
    status: 200,
    contentType: HTML,
    title: `Page ${p}`,
    settled: true,
    attempts: 1,
    timings: { ...emptyTimings(), ttfb: 10, domContentLoaded: 20, load: 30, settledMs: 100 + p.length, total: 200 },
    meta: { description: 'a page', canonical: null, h1Count: 1 },
    ...patch,
  };
}

export const link = (p: string, text: string): LinkDetail => ({ url: u(p), text, source: 'anchor', nofollow: false });

export function buildRecords(): PageRecord[] {
  const home = page(
    '/',
    {
      title: 'Home',
      linkDetails: [
        link('/about', 'About us'),
        link('/missing', 'Missing page'),
        link('/boom', 'Boom'),
        link('/gone', 'Old post'),
        link('/private', 'Private'),
        link('/redirected', 'Moved'),
        link('/offsite', 'Elsewhere'),
        link('/doc.pdf', 'PDF'),
        link('/timeout', 'Slow'),
        link('/xss', 'Weird'),
        link('/formula', 'Formula'),
        link('/admin', 'Admin'),
        link('/untitled', ''),
        link('/search?q=a&b=c', 'Search'),
      ],
      screenshot: 'home.png',
    },
    null,
  );
  home.links = home.linkDetails.map((l) => l.url);
  // What --check-external, https probes and --check-fragments add: an off-site 404, an off-site
  // bot wall, an http:// link whose https:// form answers the same, and a missing fragment.
  home.linkDetails.push(
    { url: 'https://ext.test/gone', text: 'Gone elsewhere', source: 'anchor', nofollow: false },
    { url: 'https://ext.test/wall', text: 'Walled', source: 'anchor', nofollow: false },
    { url: 'http://site.test/plain', text: 'Plain http', source: 'anchor', nofollow: false },
  );
  home.externalLinks = ['https://ext.test/gone', 'https://ext.test/wall'];
  home.linkChecks = [
    { url: 'https://ext.test/gone', kind: 'link', method: 'GET', status: 404, blockedBy: null, error: null },
    { url: 'https://ext.test/wall', kind: 'link', method: 'GET', status: 403, blockedBy: 'cf-mitigated: challenge', error: null },
    { url: 'http://site.test/plain', kind: 'link', method: 'HEAD', status: 200, blockedBy: null, error: null },
    { url: 'https://site.test/plain', kind: 'https-form', method: 'HEAD', status: 200, blockedBy: null, error: null },
  ];
  home.fragmentLinks = [
    { url: u('/about'), fragment: 'team', text: 'Team' },
    { url: u('/about'), fragment: 'history', text: 'History' },
  ];
  const about = page('/about', {
    title: TRICKY_TITLE,
    anchors: ['team'],
    linkDetails: [link('/missing', 'see the "missing" one'), link('/new-place', 'New place')],
  });
  about.links = about.linkDetails.map((l) => l.url);
  const admin = blankRecord(u('/admin'), u('/admin'), 1, u('/'));
  admin.skipped = 'robots';
  return [
    home,
    about,
    page('/missing', { status: 404, title: 'Not found' }),
    page('/boom', { status: 500, title: 'Server error' }),
    page('/gone', { soft404: true, title: 'Oops' }),
    page('/private', { noindex: true, title: 'Private' }),
    page('/redirected', { redirect: true, status: 301, finalUrl: u('/new-place'), redirectChain: [{ url: u('/redirected'), status: 301, kind: 'http' }], title: null, links: [], linkDetails: [] }),
    page('/new-place', { title: 'New place' }, '/about'),
    page('/offsite', { redirect: true, skipped: 'scope', status: 302, finalUrl: 'https://other.test/landing', redirectChain: [{ url: u('/offsite'), status: 302, kind: 'http' }], title: null, links: [], linkDetails: [] }),
    page('/doc.pdf', { contentType: 'application/pdf', title: null }),
    page('/timeout', { status: null, contentType: null, title: null, finalUrl: null, error: { code: 'timeout', message: 'navigation timed out after 30000 ms' } }),
    page('/xss', { title: XSS_TITLE }),
    page('/formula', { title: FORMULA_TITLE }),
    page('/search?q=a&b=c', { title: 'Search' }),
    page('/untitled', { title: '' }),
    admin,
  ];
}

