// The crawl's cookie jar (src/browser/cookie-jar.ts) on real Chromium: mirroring the jar into a
// context whose other tab is mid-visit never sends that tab's requests without the session.
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import { CookieJar, type JarView } from '../../src/browser/cookie-jar.js';
import { sharedBrowser } from '../helpers/browser.js';

let browser: Browser;
let server: FixtureServer;
/** For each `/ping`: whether it carried the session cookie. */
const pings: boolean[] = [];

beforeAll(async () => {
  browser = await sharedBrowser();
  server = await startFixtureServer((req, url) => {
    if (url.pathname === '/ping') {
      pings.push(/(^|; )session=s1(;|$)/.test(req.headers.cookie ?? ''));
      return { status: 204, body: '' };
    }
    return { body: html('Page', '') };
  });
});
afterAll(async () => {
  await server.close();
});

describe('CookieJar.apply', () => {
  it("rewrites a shared context's cookies without a moment when its other tab's requests lack the session", async () => {
    const { hostname } = new URL(server.origin);
    const jar = new CookieJar();
    jar.replace([{ name: 'session', value: 's1', domain: hostname, path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' }]);
    const context = await browser.newContext();
    const other = await browser.newContext();
    try {
      const view: JarView = { version: -1, baseline: new Map() };
      await jar.apply(context, view);
      const page = await context.newPage();
      await page.goto(`${server.origin}/`);
      // The tab mid-visit: requests one after the other until told to stop.
      const pinging = page.evaluate(async () => {
        const w = window as unknown as { stopPings?: boolean };
        while (!w.stopPings) await fetch('/ping');
      });
      // Another context's visits keep changing the jar (a cookie each), and this context mirrors it each time.
      const otherView: JarView = { version: -1, baseline: new Map() };
      await jar.apply(other, otherView);
      // At least 40 changes, and on until the page has made more than 40 requests meanwhile (a
      // starved renderer pings slower than this loop goes); 400 at most.
      let changes = 0;
      for (; changes < 400 && (changes < 40 || pings.length <= 40); changes++) {
        const i = changes;
        await other.addCookies([{ name: `c${i}`, value: String(i), domain: hostname, path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' }]);
        await jar.collect(other, otherView);
        await jar.apply(context, view);
      }
      await page.evaluate(() => void ((window as unknown as { stopPings?: boolean }).stopPings = true));
      await pinging;
      expect(pings.length).toBeGreaterThan(40);
      expect(pings.filter((carried) => !carried)).toEqual([]);
      // The context holds the jar's cookies: the session and one for each change.
      expect((await context.cookies()).map((c) => c.name).sort()).toEqual(['session', ...Array.from({ length: changes }, (_, i) => `c${i}`)].sort());
    } finally {
      await context.close();
      await other.close();
    }
  });
});
