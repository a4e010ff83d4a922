/**
 * Zoo cases Z21–Z24 and Z34: what is a link, what it says, where a click leads, what a fragment
 * and a canonical name (see README.md).
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureServer } from '../../fixtures/server.js';
import { startLinkSite } from '../../fixtures/zoo/links.js';
import { audit, type PageRecord } from '../../src/index.js';
import { sharedBrowser } from '../helpers/browser.js';
import { expectWellFormed, pathOf } from '../helpers/records.js';
import { summary, zooCrawl } from './helpers.js';

let browser: Browser;
let site: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startLinkSite();
});
afterAll(async () => {
  await site?.close();
});

async function run(prefix: string, opts: Parameters<typeof zooCrawl>[2] = {}): Promise<PageRecord[]> {
  const records = await zooCrawl(browser, `${site.origin}${prefix}`, opts);
  expectWellFormed(records);
  return records;
}

/** `rule path#fragment` of the audit's issues of `rules`, sorted. */
function issues(records: readonly PageRecord[], rules: readonly string[]): string[] {
  return audit(records)
    .issues.filter((i) => rules.includes(i.rule))
    .map((i) => `${i.rule} ${i.url.slice(site.origin.length)}`)
    .sort();
}

describe('zoo: links', () => {
  it('Z21 preconnect, dns-prefetch, preload, prefetch, stylesheet, icon and manifest <link>s are not links and not pages', async () => {
    site.reset();
    const records = await run('/z21/');
    expect(summary(records)).toEqual([
      { path: '/z21/', status: 200, title: 'Z21 index', skipped: null, error: null },
      { path: '/z21/next', status: 200, title: 'Z21 next', skipped: null, error: null },
    ]);
    const index = records.find((r) => pathOf(r.url) === '/z21/')!;
    expect({ links: index.links, external: index.externalLinks }).toEqual({ links: [`${site.origin}/z21/next`], external: [] });
    expect(site.documents().map((d) => d.target)).toEqual(['/z21/', '/z21/next']);
  });

  it('Z22 anchors without a destination of their own (no href, href="#", href="" with onclick) whose click navigates lead to their pages; links to the page itself are not clicked', async () => {
    const records = await run('/z22/');
    expect(summary(records)).toEqual([
      { path: '/z22/', status: 200, title: 'Z22 index', skipped: null, error: null },
      { path: '/z22/from-empty', status: 200, title: 'Fourth item', skipped: null, error: null },
      { path: '/z22/from-hash', status: 200, title: 'Second item', skipped: null, error: null },
      { path: '/z22/from-listener', status: 200, title: 'Third item', skipped: null, error: null },
      { path: '/z22/from-no-href', status: 200, title: 'First item', skipped: null, error: null },
    ]);
    const index = records.find((r) => pathOf(r.url) === '/z22/')!;
    expect(index.linkDetails.filter((l) => l.source === 'click').map((l) => pathOf(l.url)).sort()).toEqual(['/z22/from-empty', '/z22/from-hash', '/z22/from-listener', '/z22/from-no-href']);
    // The three links to the page itself were never clicked (the nav's handler would have asked for this).
    expect(site.count('/z22/clicked')).toBe(0);
  });

  it('Z23 fragment targets made by script after load, and a non-ASCII id linked escaped or raw, are found; only #missing is broken', async () => {
    const records = await run('/z23/', { checkFragments: true });
    expect(summary(records).map((r) => `${r.path} ${r.status}`)).toEqual(['/z23/ 200', '/z23/doc 200']);
    expect(issues(records, ['broken-fragment'])).toEqual(['broken-fragment /z23/doc#missing']);
  });

  it('Z24 a canonical link naming the page itself in another spelling (scheme case, escape case, fragment) is not a canonical-mismatch; one named by an HTTP Link header counts, <link> wins over it', async () => {
    const records = await run('/z24/');
    expect(summary(records).map((r) => `${r.path} ${r.status}`)).toEqual(['/z24/ 200', '/z24/both 200', '/z24/by-header 200', '/z24/caf%C3%A9 200', '/z24/other 200', '/z24/self-header 200']);
    expect(issues(records, ['canonical-mismatch'])).toEqual(['canonical-mismatch /z24/by-header', 'canonical-mismatch /z24/other']);
    const canonicalOf = (p: string): string | null | undefined => records.find((r) => r.url.endsWith(p))?.meta.canonical;
    expect([canonicalOf('/z24/by-header'), canonicalOf('/z24/self-header'), canonicalOf('/z24/both')]).toEqual([
      `${site.origin}/z24/elsewhere`,
      `${site.origin}/z24/self-header`,
      `${site.origin}/z24/both`,
    ]);
  });

  it('Z34 an image-only link is named by the image alt text: the broken link report names it', async () => {
    const records = await run('/z34/');
    const index = records.find((r) => pathOf(r.url) === '/z34/')!;
    expect(index.linkDetails.map((l) => l.text)).toEqual(['Spring catalogue', 'Catalogue', 'Open the catalogue']);
    const broken = audit(records).issues.find((i) => i.rule === 'broken-link' && i.url === `${site.origin}/z34/gone`)!;
    expect(broken.referrers.map((r) => r.text)).toEqual(['Spring catalogue', 'Catalogue', 'Open the catalogue']);
  });
});
