// Which garbage collection a renderer gets: V8's own, called in the page (it keeps the compilation
// cache), with CDP's low-memory collection as the every-N-visits backstop and as the fallback for
// a browser launched without spacrawl's V8 flags.
import { chromium, type Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import { CHROMIUM_ARGS } from '../../src/browser/launch.js';
import { locateBrowser } from '../../src/browser/locate.js';
import { collectIfGrown, COLLECT_EVERY_VISITS, GC_FUNCTION, HEAP_GROWTH_FLOOR_BYTES, heapBytes, ISOLATE_RECHECK_VISITS, RendererHeaps, type HeapUsage } from '../../src/browser/renderer-heap.js';
import { openTab, type VisitTab } from '../../src/browser/tab.js';
import { sharedBrowser } from '../helpers/browser.js';
import { recordSends, type SentCommand } from '../helpers/cdp-sends.js';

let server: FixtureServer;
let browser: Browser;

beforeAll(async () => {
  server = await startFixtureServer(() => ({ body: html('Page', '<p>page</p>') }));
  browser = await sharedBrowser();
});
afterAll(async () => {
  await server.close();
});

/** The methods of the commands recorded in `sent` (see `recordSends`). */
const methods = (sent: SentCommand[]): string[] => sent.map((c) => c.method);

/** Leave garbage of twice the growth floor in `tab`'s page. */
async function makeGarbage(tab: VisitTab): Promise<void> {
  await tab.page.evaluate((mb) => {
    const w = window as unknown as { junk: number[][] | null };
    w.junk = Array.from({ length: mb * 2 }, (_, i) => new Array(65536).fill(i + 0.5));
    w.junk = null;
  }, (2 * HEAP_GROWTH_FLOOR_BYTES) / (1024 * 1024));
}

const held = async (tab: VisitTab): Promise<number> => heapBytes((await tab.cdp.send('Runtime.getHeapUsage')) as HeapUsage);

describe("a renderer's garbage collection", () => {
  it("is V8's own, in the page, and CDP's low-memory one only every COLLECT_EVERY_VISITS visits", async () => {
    const context = await browser.newContext();
    try {
      const heaps = new RendererHeaps();
      const tab = await openTab(context, null, 'load', heaps);
      await tab.page.goto(`${server.origin}/`);
      // The launch exposes the collection to pages under its own name, not as `gc`.
      expect(await tab.page.evaluate((name) => typeof (window as unknown as Record<string, unknown>)[name], GC_FUNCTION)).toBe('function');
      expect(await tab.page.evaluate(() => typeof (window as unknown as { gc?: unknown }).gc)).toBe('undefined');
      const sent = recordSends(tab.cdp);
      await makeGarbage(tab);
      expect(await collectIfGrown(tab.cdp, heaps)).toBe(true);
      expect(methods(sent)).toContain('Runtime.evaluate');
      expect(methods(sent)).not.toContain('HeapProfiler.collectGarbage');
      // It freed the garbage, and V8 gave the space back.
      expect(await held(tab)).toBeLessThan(HEAP_GROWTH_FLOOR_BYTES);
      // The backstop: at COLLECT_EVERY_VISITS visits, whatever the heaps say, CDP's collection.
      const watch = heaps.watch((await tab.cdp.send('Runtime.getIsolateId')).id);
      watch.visitsSinceCollect = COLLECT_EVERY_VISITS - 2;
      sent.length = 0;
      expect(await collectIfGrown(tab.cdp, heaps)).toBe(false);
      expect(methods(sent)).not.toContain('HeapProfiler.collectGarbage');
      expect(await collectIfGrown(tab.cdp, heaps)).toBe(true);
      expect(methods(sent)).toContain('HeapProfiler.collectGarbage');
      expect(watch.visitsSinceCollect).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('reads a tab\'s isolate id once every ISOLATE_RECHECK_VISITS visits, and counts each visit in its renderer\'s watch', async () => {
    const context = await browser.newContext();
    try {
      const heaps = new RendererHeaps();
      const tab = await openTab(context, null, 'load', heaps);
      await tab.page.goto(`${server.origin}/`);
      const id = (await tab.cdp.send('Runtime.getIsolateId')).id;
      const sent = recordSends(tab.cdp);
      const visits = 2 * ISOLATE_RECHECK_VISITS + 1;
      for (let i = 0; i < visits; i++) await collectIfGrown(tab.cdp, heaps);
      expect(methods(sent).filter((m) => m === 'Runtime.getIsolateId')).toHaveLength(3);
      expect(methods(sent).filter((m) => m === 'Runtime.getHeapUsage')).toHaveLength(visits);
      expect(heaps.size).toBe(1);
      expect(heaps.watch(id).visitsSinceCollect).toBe(visits);
    } finally {
      await context.close();
    }
  });

  it("falls back to CDP's collection in a browser launched without spacrawl's V8 flags", async () => {
    const plain = await chromium.launch({ executablePath: locateBrowser(null).executablePath, args: CHROMIUM_ARGS.filter((a) => !a.startsWith('--js-flags')) });
    try {
      const heaps = new RendererHeaps();
      const tab = await openTab(await plain.newContext(), null, 'load', heaps);
      await tab.page.goto(`${server.origin}/`);
      expect(await tab.page.evaluate((name) => typeof (window as unknown as Record<string, unknown>)[name], GC_FUNCTION)).toBe('undefined');
      const sent = recordSends(tab.cdp);
      await makeGarbage(tab);
      expect(await collectIfGrown(tab.cdp, heaps)).toBe(true);
      expect(methods(sent)).toContain('HeapProfiler.collectGarbage');
      expect(await held(tab)).toBeLessThan(HEAP_GROWTH_FLOOR_BYTES);
    } finally {
      await plain.close();
    }
  });
});
