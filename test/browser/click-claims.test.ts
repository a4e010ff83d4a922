// Click discovery on a page whose clickables another page is learning (exploreClicks in
// src/browser/explore.ts with a click policy that says `wait`, as ClickMemory does while another
// page holds the claim), in real Chromium. Once a claim ends, every deferred clickable is judged
// again at once: a page does not wait once more for each one that was decided meanwhile (on
// TypeDoc, a page sat idle 100 ms per deferred control after all were learned).
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import type { ClickPolicy, ClickVerdict } from '../../src/browser/click-memory.js';
import { exploreClicks } from '../../src/browser/explore.js';
import { sharedBrowser } from '../helpers/browser.js';

const BODY = `
  <button onclick="this.dataset.n = (Number(this.dataset.n || 0) + 1)">Search</button>
  <button onclick="this.dataset.n = (Number(this.dataset.n || 0) + 1)">Settings</button>
  <button onclick="this.dataset.n = (Number(this.dataset.n || 0) + 1)">Protected</button>
  <button onclick="this.dataset.n = (Number(this.dataset.n || 0) + 1)">Inherited</button>`;

let server: FixtureServer;
let browser: Browser;

beforeAll(async () => {
  server = await startFixtureServer(() => ({ body: html('Claims', BODY) }));
  browser = await sharedBrowser();
});
afterAll(async () => {
  await server.close();
});

/**
 * A policy that says `wait` for every clickable until the first `claimEnded`, then what `after`
 * gives (the other page's claim ended: learned as chrome, or given back). Counts the waits.
 */
function learningElsewhere(after: (sig: string) => ClickVerdict): { policy: ClickPolicy; waits: () => number } {
  let decided = false;
  let waits = 0;
  const verdict = (sig: string): ClickVerdict => (decided ? after(sig) : 'wait');
  const policy: ClickPolicy = {
    peek: verdict,
    take: (sig, force) => {
      const v = verdict(sig);
      return v === 'wait' && force ? 'click' : v;
    },
    skipReason: (sig) => (verdict(sig) === 'skip' ? 'chrome' : null),
    observe: () => {},
    release: () => {},
    claimEnded: () => {
      waits++;
      decided = true;
      return Promise.resolve();
    },
  };
  return { policy, waits: () => waits };
}

async function explore(policy: ClickPolicy): Promise<{ clicks: number; chrome: number; clicked: string[] }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${server.origin}/`);
    const opts = { limit: 100, exclude: [], policy, repeat: 20, clickWaitMs: 1_000, budgetMs: 30_000, maxRevealDepth: 2 };
    const ex = await exploreClicks(page, new Set(), opts, async () => true);
    const clicked = await page.$$eval('button[data-n]', (bs) => bs.map((b) => `${b.textContent}×${(b as HTMLElement).dataset.n}`));
    return { clicks: ex.clicks, chrome: ex.skipped.chrome, clicked };
  } finally {
    await context.close();
  }
}

describe('clickables another page is learning', () => {
  it('once the claims end, the deferred clickables learned as chrome are all skipped after one wait, not one wait each', async () => {
    const { policy, waits } = learningElsewhere(() => 'skip');
    const res = await explore(policy);
    expect(res).toEqual({ clicks: 0, chrome: 4, clicked: [] });
    expect(waits()).toBe(1);
  });

  it('a claim given back makes its clickable clicked here, in the same pass as the others are skipped', async () => {
    const { policy, waits } = learningElsewhere((sig) => (sig.includes('Settings') ? 'click' : 'skip'));
    const res = await explore(policy);
    expect(res).toEqual({ clicks: 1, chrome: 3, clicked: ['Settings×1'] });
    expect(waits()).toBe(1);
  });
});
