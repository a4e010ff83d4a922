/**
 * Zoo case Z38: in-scope URLs that redirect off-site, checked with `checkExternal` (see README.md).
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORWARDS, startForwardSites } from '../../fixtures/zoo/forwards.js';
import { audit, type PageRecord } from '../../src/index.js';
import { sharedBrowser } from '../helpers/browser.js';
import { expectWellFormed } from '../helpers/records.js';
import { zooCrawl } from './helpers.js';

let browser: Browser;
let sites: Awaited<ReturnType<typeof startForwardSites>>;

beforeAll(async () => {
  browser = await sharedBrowser();
  sites = await startForwardSites();
}, 60_000);
afterAll(async () => {
  await sites?.close();
});

/** Link findings as `rule url message ← referrer "text"`, the site's and the other origin shortened to `S` and `O`, sorted. */
function linkFindings(records: readonly PageRecord[]): string[] {
  const short = (s: string): string => s.replaceAll(sites.site.origin, 'S').replaceAll(sites.other.origin, 'O');
  return audit(records)
    .issues.filter((i) => i.rule === 'broken-link' || i.rule === 'blocked')
    .map((i) => short(`${i.rule} ${i.url} ${i.message} ← ${i.referrers.map((r) => `${r.url} "${r.text}"`).join(', ')}`))
    .sort();
}

describe('zoo: in-scope links that redirect off-site', () => {
  it('Z38 with checkExternal, the off-site target of a redirect is checked once (shared with a direct link to it) and a broken one is a broken-link of the linked URL', async () => {
    sites.other.log.length = 0;
    const records = await zooCrawl(browser, `${sites.site.origin}/`, { checkExternal: true });
    expectWellFormed(records);
    const forward = records.find((r) => r.url === `${sites.site.origin}${FORWARDS.partner.path}`)!;
    expect([forward.redirect, forward.skipped, forward.finalUrl]).toEqual([true, 'scope', `${sites.other.origin}${FORWARDS.partner.target}`]);
    expect(linkFindings(records)).toEqual([
      'blocked S/go/busy redirects off-site to O/busy: HTTP 429: rate-limited, not necessarily broken (off-site, checked with HEAD) ← S/ "busy"',
      'broken-link O/moved HTTP 404 (off-site, checked with GET) ← S/ "moved"',
      'broken-link S/go/partner redirects off-site to O/moved: HTTP 404 (off-site, checked with GET) ← S/ "partner"',
    ]);
    // Each off-site URL once, never from the browser (it stopped at the hop).
    expect(sites.other.log.map((l) => `${l.method} ${l.target}`).sort()).toEqual(['GET /gone', 'GET /moved', 'HEAD /busy', 'HEAD /fine', 'HEAD /gone', 'HEAD /moved']);
  }, 120_000);

  it('Z38 without checkExternal, the target is never requested and nothing is reported of it', async () => {
    sites.other.log.length = 0;
    const records = await zooCrawl(browser, `${sites.site.origin}/`);
    expect(linkFindings(records)).toEqual([]);
    expect(sites.other.log).toEqual([]);
  }, 120_000);
});
