/**
 * Zoo cases Z25–Z27: off-site links checked with `checkExternal` (see README.md).
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFSITE_PATHS, startExternalSites } from '../../fixtures/zoo/external.js';
import { audit, type PageRecord } from '../../src/index.js';
import { sharedBrowser } from '../helpers/browser.js';
import { expectWellFormed } from '../helpers/records.js';
import { zooCrawl } from './helpers.js';

let browser: Browser;
let sites: Awaited<ReturnType<typeof startExternalSites>>;
let records: PageRecord[];

beforeAll(async () => {
  browser = await sharedBrowser();
  sites = await startExternalSites();
  records = await zooCrawl(browser, `${sites.site.origin}/`, { checkExternal: true });
  expectWellFormed(records);
}, 120_000);
afterAll(async () => {
  await sites?.close();
});

/** The page's check of one off-site path: `METHOD status`, or the error code. */
function check(path: string): string {
  const c = records[0]!.linkChecks.find((x) => x.url === `${sites.other.origin}${path}`);
  if (!c) return 'not checked';
  return c.error ? `${c.method} ${c.error.code}` : `${c.method} ${c.status}`;
}

/** Requests `other` saw for `path`, as `METHOD path`. */
function asked(path: string): string[] {
  return sites.other.log.filter((l) => l.target === path).map((l) => `${l.method} ${l.target}`);
}

describe('zoo: off-site link checks', () => {
  it('the crawl is one page whose eight off-site links are all checked, and only the moved one is broken', () => {
    expect(records.map((r) => [r.url, r.status, r.title])).toEqual([[`${sites.site.origin}/`, 200, 'Outbound links']]);
    expect(records[0]!.externalLinks).toHaveLength(Object.values(OFFSITE_PATHS).length);
    expect(records[0]!.linkChecks.map((c) => c.url)).toEqual(records[0]!.externalLinks);
    const broken = audit(records).issues.filter((i) => i.rule === 'broken-link' || i.rule === 'blocked').map((i) => `${i.rule} ${i.url.slice(sites.other.origin.length)}`);
    expect(broken).toEqual(['broken-link /moved']);
  });

  it('Z25 a server that refuses HEAD (405) is asked again with GET: 200, not broken', () => {
    expect(check(OFFSITE_PATHS.headRefused)).toBe('GET 200');
    expect(asked(OFFSITE_PATHS.headRefused)).toEqual(['HEAD /head-refused', 'GET /head-refused']);
  });

  it('Z26 a server that answers 404 unless the request accepts text/html is asked like a browser asks: 200', () => {
    expect(check(OFFSITE_PATHS.negotiated)).toBe('HEAD 200');
    expect(asked(OFFSITE_PATHS.negotiated)).toEqual(['HEAD /negotiated']);
  });

  it('Z27 redirects are followed and the last status counts: 301 → 404 is broken, 308 → 200 is not', () => {
    expect(check(OFFSITE_PATHS.moved)).toBe('GET 404');
    expect(check(OFFSITE_PATHS.renamed)).toBe('HEAD 200');
    expect(check(OFFSITE_PATHS.fine)).toBe('HEAD 200');
    expect(asked('/gone')).toEqual(['HEAD /gone', 'GET /gone']);
  });

  it('Z33 an off-site link is checked as linked: its whole query, in its order, with its escapes', () => {
    const asChecked = (p: string): string => {
      const c = records[0]!.linkChecks.find((x) => x.url === records[0]!.externalLinks[Object.values(OFFSITE_PATHS).indexOf(p as never)]);
      return c ? `${c.method} ${c.status}` : 'not checked';
    };
    expect([OFFSITE_PATHS.withParams, OFFSITE_PATHS.ordered, OFFSITE_PATHS.escaped].map(asChecked)).toEqual(['HEAD 200', 'HEAD 200', 'HEAD 200']);
    const seen = sites.other.log.map((l) => l.target).filter((t) => /^\/(details|list|%7Eowner|~owner)/.test(t));
    expect(seen).toEqual(['/details?id=app&sid=7', '/list?b=2&a=1', '/%7Eowner']);
  });
});
