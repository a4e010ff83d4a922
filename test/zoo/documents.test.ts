/**
 * Zoo cases Z16–Z20: titles and document types as a browser reads them (see README.md).
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureServer } from '../../fixtures/server.js';
import { startDocumentSite } from '../../fixtures/zoo/documents.js';
import { type PageRecord } from '../../src/index.js';
import { sharedBrowser } from '../helpers/browser.js';
import { expectWellFormed } from '../helpers/records.js';
import { summary, zooCrawl } from './helpers.js';

let browser: Browser;
let site: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startDocumentSite();
});
afterAll(async () => {
  await site?.close();
});

async function run(prefix: string): Promise<PageRecord[]> {
  const records = await zooCrawl(browser, `${site.origin}${prefix}`);
  expectWellFormed(records);
  return records;
}

describe('zoo: documents', () => {
  it('Z16 <title> elements inside inline SVG are not the page title', async () => {
    const records = await run('/z16/');
    expect(summary(records)).toEqual([
      { path: '/z16/', status: 200, title: 'Z16 index', skipped: null, error: null },
      { path: '/z16/end', status: 200, title: 'z16 end', skipped: null, error: null },
      { path: '/z16/icons-first', status: 200, title: 'Item page', skipped: null, error: null },
      { path: '/z16/icons-only', status: 200, title: '', skipped: null, error: null },
    ]);
  });

  it('Z17 titles in windows-1251 and GBK (declared by <meta>) and in UTF-8 with a BOM (header says ISO-8859-1) read right', async () => {
    const records = await run('/z17/');
    expect(summary(records)).toEqual([
      { path: '/z17/', status: 200, title: 'Z17 index', skipped: null, error: null },
      { path: '/z17/bom', status: 200, title: 'Café – menü', skipped: null, error: null },
      { path: '/z17/cyrillic', status: 200, title: 'Привет', skipped: null, error: null },
      { path: '/z17/end', status: 200, title: 'z17 end', skipped: null, error: null },
      { path: '/z17/gbk', status: 200, title: '中文', skipped: null, error: null },
    ]);
  });

  it('Z18 an HTML page without Content-Type is rendered: title read, links followed', async () => {
    const records = await run('/z18/');
    expect(summary(records)).toEqual([
      { path: '/z18/', status: 200, title: 'Z18 index', skipped: null, error: null },
      { path: '/z18/end', status: 200, title: 'z18 end', skipped: null, error: null },
      { path: '/z18/untyped', status: 200, title: 'Untyped page', skipped: null, error: null },
    ]);
    expect(records.find((r) => r.url.endsWith('/z18/untyped'))!.contentType).toBeNull();
  });

  it('Z19 an application/xhtml+xml page is a page: title read, links followed', async () => {
    const records = await run('/z19/');
    expect(summary(records)).toEqual([
      { path: '/z19/', status: 200, title: 'Z19 index', skipped: null, error: null },
      { path: '/z19/end', status: 200, title: 'z19 end', skipped: null, error: null },
      { path: '/z19/strict', status: 200, title: 'XHTML page', skipped: null, error: null },
    ]);
  });

  it('Z20 a gzip-encoded page is decoded: title read, links followed', async () => {
    const records = await run('/z20/');
    expect(summary(records)).toEqual([
      { path: '/z20/', status: 200, title: 'Z20 index', skipped: null, error: null },
      { path: '/z20/end', status: 200, title: 'z20 end', skipped: null, error: null },
      { path: '/z20/packed', status: 200, title: 'Compressed page', skipped: null, error: null },
    ]);
  });
});
