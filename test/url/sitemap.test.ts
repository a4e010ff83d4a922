/**
 * readSitemaps (src/url/sitemap.ts) against a real local server that counts requests: a bad
 * `<loc>` in an index costs only itself, text sitemaps (sitemaps.org "Other formats") are read,
 * and a sitemap file the gate (robots.txt) refuses is never requested.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureResponse, type FixtureServer } from '../../fixtures/server.js';
import { HttpClient } from '../../src/net/http-client.js';
import { RobotsCache } from '../../src/url/robots.js';
import { readSitemaps } from '../../src/url/sitemap.js';

let s: FixtureServer;
const api = new HttpClient({ userAgent: 'spacrawl-test' });
const xml = (body: string): FixtureResponse => ({ headers: { 'content-type': 'application/xml' }, body });
const plain = (body: string | Buffer): FixtureResponse => ({ headers: { 'content-type': 'text/plain' }, body });

beforeAll(async () => {
  s = await startFixtureServer((_req, url, self) => {
    const o = self.origin;
    const routes: Record<string, FixtureResponse> = {
      '/robots.txt': plain('User-agent: *\nDisallow: /private/\n'),
      '/index.xml': xml(
        `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
          `<sitemap><loc>http://[not-a-url</loc></sitemap><sitemap><loc>${o}/a.xml</loc></sitemap><sitemap><loc>/b.txt</loc></sitemap></sitemapindex>`,
      ),
      '/a.xml': xml(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://[bad</loc></url><url><loc>${o}/a1</loc></url></urlset>`),
      '/b.txt': plain(`\uFEFF${o}/t1\r\n\r\n  ${o}/t2?x=1&y=2  \n# not a URL\n/relative\n${o}/a1\n`),
      '/c.txt.gz': { headers: { 'content-type': 'application/gzip' }, body: gzipSync(`${o}/gz1\n${o}/gz2\n`) },
      '/junk.txt': plain('nothing here\n'),
      '/gated.xml': xml(`<sitemapindex><sitemap><loc>${o}/private/hidden.xml</loc></sitemap><sitemap><loc>${o}/open.txt</loc></sitemap></sitemapindex>`),
      '/private/hidden.xml': xml(`<urlset><url><loc>${o}/secret</loc></url></urlset>`),
      '/open.txt': plain(`${o}/o1\n`),
    };
    return routes[url.pathname] ?? { status: 404, body: 'no' };
  });
});
afterAll(async () => {
  await s.close();
});

describe('readSitemaps', () => {
  it('an index with a <loc> that is not a URL still yields its other sitemaps, and a bad page <loc> costs only itself', async () => {
    const found = await readSitemaps(api, [`${s.origin}/index.xml`]);
    expect(found.files).toEqual([`${s.origin}/index.xml`, `${s.origin}/a.xml`, `${s.origin}/b.txt`]);
    expect(found.urls).toEqual([`${s.origin}/a1`, `${s.origin}/t1`, `${s.origin}/t2?x=1&y=2`]);
    expect(found.problems).toEqual([]);
  });

  it('reads text sitemaps, plain and gzipped: one absolute URL per line; a file with none is "not a sitemap"', async () => {
    const found = await readSitemaps(api, [`${s.origin}/c.txt.gz`, `${s.origin}/junk.txt`]);
    expect(found.urls).toEqual([`${s.origin}/gz1`, `${s.origin}/gz2`]);
    expect(found.problems).toEqual([`${s.origin}/junk.txt: not a sitemap (neither XML nor one URL per line)`]);
  });

  it('a sitemap file robots.txt disallows is never requested; the others are', async () => {
    const robots = new RobotsCache({ request: api });
    const found = await readSitemaps(api, [`${s.origin}/gated.xml`], { mayFetch: (url) => robots.isAllowed(url) });
    expect(found.urls).toEqual([`${s.origin}/o1`]);
    expect(found.problems).toEqual([`${s.origin}/private/hidden.xml: disallowed by robots.txt, not requested`]);
    expect([s.count('/private/hidden.xml'), s.count('/open.txt'), s.count('/robots.txt')]).toEqual([0, 1, 1]);
  });
});
