/**
 * Zoo case Z40: `#fragment` links to a URL that redirects (see README.md).
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import { audit } from '../../src/index.js';
import { sharedBrowser } from '../helpers/browser.js';
import { expectWellFormed, pathOf } from '../helpers/records.js';
import { zooCrawl } from './helpers.js';

let browser: Browser;
let site: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startFixtureServer((_req, url) => {
    switch (url.pathname) {
      case '/':
        return {
          body: html(
            'Docs',
            '<h1>Docs</h1><a href="/old-guide#install">Install</a> <a href="/old-guide#upgrade">Upgrade</a> <a href="/guide#usage">Usage</a> <a href="/guide#faq">FAQ</a>',
          ),
        };
      // Moved: the browser keeps the link's fragment across the redirect (RFC 9110 §10.2.2).
      case '/old-guide':
        return { status: 301, headers: { location: '/guide' } };
      case '/guide':
        return { body: html('Guide', '<h1>Guide</h1><h2 id="install">Install</h2><h2 id="usage">Usage</h2>') };
      default:
        return { status: 404, body: html('Not found', '<h1>Not found</h1>') };
    }
  });
}, 60_000);
afterAll(async () => {
  await site?.close();
});

describe('zoo: fragments through redirects', () => {
  it('Z40 a #fragment link to a URL that redirects is checked against the page it lands on', async () => {
    const records = await zooCrawl(browser, `${site.origin}/`, { checkFragments: true });
    expectWellFormed(records);
    const found = audit(records)
      .issues.filter((i) => i.rule === 'broken-fragment')
      .map((i) => `${i.url.replace(site.origin, '')}: ${i.message.replaceAll(site.origin, '')} ← ${i.referrers.map((r) => `${pathOf(r.url)} "${r.text}"`).join(', ')}`);
    expect(found).toEqual([
      '/guide#faq: /guide has no element with id "faq" (nor an <a name="faq">) ← / "FAQ"',
      '/old-guide#upgrade: /old-guide (redirects to /guide) has no element with id "upgrade" (nor an <a name="upgrade">) ← / "Upgrade"',
    ]);
  }, 120_000);
});
