/**
 * Zoo case Z39: `duplicate-title` judges only pages a search engine would index (see README.md).
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import { audit, type PageRecord } from '../../src/index.js';
import { sharedBrowser } from '../helpers/browser.js';
import { expectWellFormed, pathOf } from '../helpers/records.js';
import { zooCrawl } from './helpers.js';

let browser: Browser;
let site: FixtureServer;
let records: PageRecord[];

const NOT_FOUND = html('Page not found', '<h1>Page not found</h1><p>Sorry, there is nothing at this address.</p>');

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startFixtureServer((_req, url) => {
    const canonical = (p: string): string => `<link rel="canonical" href="${site.origin}${p}">`;
    switch (url.pathname + url.search) {
      case '/':
        return {
          body: html(
            'Shop',
            '<h1>Shop</h1><a href="/shoes">Shoes</a> <a href="/shoes?sort=price">Shoes by price</a> <a href="/print/shoes">Print</a> ' +
              '<a href="/gone-1">Old offer</a> <a href="/gone-2">Older offer</a> <a href="/about">About</a> <a href="/about-us">About us</a>',
          ),
        };
      case '/shoes':
        return { body: html('Shoes', '<h1>Shoes</h1><p>Every shoe we sell, in one list.</p>', canonical('/shoes')) };
      // The same list sorted: it names /shoes as its canonical, so it is not indexed on its own.
      case '/shoes?sort=price':
        return { body: html('Shoes', '<h1>Shoes</h1><p>Every shoe we sell, cheapest first.</p>', canonical('/shoes')) };
      // A print view that asks not to be indexed.
      case '/print/shoes':
        return { body: html('Shoes', '<h1>Shoes</h1><p>Printable list of every shoe.</p>', '<meta name="robots" content="noindex">') };
      // Two real pages with one title: the finding this rule is for.
      case '/about':
        return { body: html('About', '<h1>About</h1><p>Who we are and where we started.</p>') };
      case '/about-us':
        return { body: html('About', '<h1>About us</h1><p>Our team, our shop and our story.</p>') };
      default:
        // Gone offers and any unknown URL: the site's not-found screen with status 200 (soft 404s).
        return { body: NOT_FOUND };
    }
  });
  records = await zooCrawl(browser, `${site.origin}/`);
  expectWellFormed(records);
}, 120_000);
afterAll(async () => {
  await site?.close();
});

describe('zoo: duplicate titles', () => {
  it('Z39 the crawl sees every page: the gone offers are soft 404s, the sorted list names /shoes as canonical, the print view says noindex', () => {
    const seen = records.map((r) => [pathOf(r.url), r.status, r.title, r.soft404, r.noindex]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(seen).toEqual([
      ['/', 200, 'Shop', false, false],
      ['/about', 200, 'About', false, false],
      ['/about-us', 200, 'About', false, false],
      ['/gone-1', 200, 'Page not found', true, false],
      ['/gone-2', 200, 'Page not found', true, false],
      ['/print/shoes', 200, 'Shoes', false, true],
      ['/shoes', 200, 'Shoes', false, false],
      ['/shoes?sort=price', 200, 'Shoes', false, false],
    ]);
  });

  it('Z39 duplicate-title: only the two indexable pages that share a title; not soft 404s, a page canonicalised to another, nor a noindex page', () => {
    const found = audit(records)
      .issues.filter((i) => i.rule === 'duplicate-title')
      .map((i) => `${pathOf(i.url)}: ${i.message.replaceAll(site.origin, '')}`);
    expect(found).toEqual(['/about: title "About" is also used by /about-us', '/about-us: title "About" is also used by /about']);
    // The soft 404s are still broken links, the canonicalised page still a canonical-mismatch, the print view a noindex notice.
    const others = audit(records)
      .issues.filter((i) => ['broken-link', 'canonical-mismatch', 'noindex'].includes(i.rule))
      .map((i) => `${i.rule} ${pathOf(i.url)}`);
    expect(others).toEqual(['broken-link /gone-1', 'broken-link /gone-2', 'canonical-mismatch /shoes?sort=price', 'noindex /print/shoes']);
  });
});
