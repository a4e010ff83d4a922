import type { Page, Route } from 'playwright';
import { clickCandidate, recordNavigations, scanClickables, scrollToEnd, takeNavigations, type ClickCandidate } from './click-scripts.js';
import { extractPage } from './page-scripts.js';
import { sleep, withTimeout } from './timeout.js';
import type { FoundLink } from './visit.js';

/** Accessible names never clicked: destructive or session-ending actions. Extend with `--click-exclude`. */
export const DESTRUCTIVE_NAMES: readonly string[] = ['log ?out', 'sign ?out', 'delete', 'remove', 'unsubscribe', 'buy', 'pay', 'checkout', 'purchase', 'order now', 'deactivate', 'close account'];

/** How click discovery behaves on one page. */
export interface ClickOptions {
  /** Most clicks on this page. @default 100 */
  limit: number;
  /** Extra accessible-name patterns never clicked (regex sources, case-insensitive). */
  exclude: readonly string[];
  /**
   * Asked once per distinct clickable (signature = role or tag, accessible name, nearest
   * landmark) before clicking it; `false` skips it. `--click auto` answers `true` only the first
   * time a signature is seen on the site; `--click all` always answers `true`.
   */
  shouldClick: (signature: string) => boolean;
  /** Longest wait for the page to go quiet after one click (ms). @default 1000 */
  clickWaitMs: number;
  /** Time budget for all clicks on the page (ms). */
  budgetMs: number;
  /** How many rounds of revealed clickables are followed (a click that reveals clickables that reveal …). @default 2 */
  maxRevealDepth: number;
}

/** Options of {@link scrollForLinks}. */
export interface ScrollOptions {
  /** Most scroll steps (one viewport each). @default 30 */
  maxSteps: number;
  /** Wait after each step (ms). @default 250 */
  stepMs: number;
}

/** What exploring found. */
export interface ExploreResult {
  links: FoundLink[];
  clicks: number;
  /** Non-GET requests and document navigations that were blocked while clicking. */
  blocked: number;
}

/** `true` once the page's network and DOM have been quiet for `quietMs`. */
export type QuietProbe = (quietMs: number) => Promise<boolean>;

/**
 * Scroll to the end of the page (lazy lists render links only when scrolled into view) and
 * return the links that appeared, with source `scroll`.
 * @param known - hrefs already found on the page
 */
export async function scrollForLinks(page: Page, known: Set<string>, opts: ScrollOptions, quiet: QuietProbe): Promise<FoundLink[]> {
  await withTimeout(page.evaluate(scrollToEnd, { maxSteps: opts.maxSteps, stepMs: opts.stepMs }), opts.maxSteps * (opts.stepMs + 200) + 5000, 'scrolling');
  await waitQuiet(quiet, 200, 1500);
  return newLinks(page, known, 'scroll');
}

/**
 * Click discovery: click the page's clickables (see `scanClickables`) one at a time, and after
 * each click capture (a) any navigation it caused or attempted — `pushState`, `replaceState`,
 * hash change, `window.open`, a document request — and restore the page, and (b) the `<a href>`
 * it revealed, plus clickables it revealed (up to `maxRevealDepth` rounds).
 *
 * Safety while exploring: every non-GET request is aborted (nothing a click triggers may change
 * server state) and every document navigation of the main frame is recorded and aborted; the
 * page is restored with `history.back()` (no network request) when a click changed its URL.
 * @param known - hrefs already found on the page (not reported again)
 */
export async function exploreClicks(page: Page, known: Set<string>, opts: ClickOptions, quiet: QuietProbe): Promise<ExploreResult> {
  const result: ExploreResult = { links: [], clicks: 0, blocked: 0 };
  const deadline = Date.now() + opts.budgetMs;
  const navigations: string[] = [];
  const guard = async (route: Route): Promise<void> => {
    const req = route.request();
    if (req.method() !== 'GET' && req.method() !== 'HEAD' && req.method() !== 'OPTIONS') {
      result.blocked++;
      await route.abort('blockedbyclient').catch(() => {});
      return;
    }
    if (req.isNavigationRequest() && req.frame() === page.mainFrame()) {
      navigations.push(req.url());
      result.blocked++;
      await route.abort('aborted').catch(() => {});
      return;
    }
    await route.fallback().catch(() => {});
  };
  const exclude = [...DESTRUCTIVE_NAMES, ...opts.exclude].map((p) => `(?:${p})`).join('|');
  const scan = async (): Promise<ClickCandidate[]> =>
    withTimeout(page.evaluate(scanClickables, exclude), 5_000, 'scanning clickables').catch(() => []);
  // Most pages have nothing to click: then the guard and the history hooks are not installed
  // (routing every request of the page through the crawler costs CPU on every page).
  const initial = await scan();
  if (!initial.length) return result;
  await page.route('**/*', guard);
  try {
    const origin = page.url();
    await withTimeout(page.evaluate(recordNavigations), 5_000, 'hooking history');
    const seenSigs = new Set<string>();
    const queue: { sig: string; depth: number }[] = [];
    // Clickables a click revealed go first (depth-first), while what revealed them is still open:
    // a later click may re-render the page and hide them again.
    const enqueue = (cands: { signature: string }[], depth: number): void => {
      const fresh: { sig: string; depth: number }[] = [];
      for (const c of cands) {
        if (seenSigs.has(c.signature)) continue;
        seenSigs.add(c.signature);
        fresh.push({ sig: c.signature, depth });
      }
      queue.unshift(...fresh);
    };
    enqueue(initial, 0);
    while (queue.length && result.clicks < opts.limit && Date.now() < deadline) {
      const { sig, depth } = queue.shift()!;
      if (!opts.shouldClick(sig)) continue;
      const cands = await scan();
      const target = cands.find((c) => c.signature === sig);
      if (!target) continue;
      const clicked = await withTimeout(page.evaluate(clickCandidate, target.index), 5_000, 'clicking').catch(() => false);
      if (!clicked) continue;
      result.clicks++;
      await waitQuiet(quiet, 200, Math.min(opts.clickWaitMs, Math.max(0, deadline - Date.now())));
      // (a) navigations the click caused or attempted
      const navs = [...navigations.splice(0), ...(await withTimeout(page.evaluate(takeNavigations), 5_000, 'reading navigations').catch(() => [] as string[]))];
      for (const href of navs) {
        if (known.has(href)) continue;
        known.add(href);
        result.links.push({ href, text: target.name, source: 'click', rel: '' });
      }
      // (b) links it revealed
      result.links.push(...(await newLinks(page, known, 'click')));
      if (page.url() !== origin) {
        await withTimeout(page.goBack({ waitUntil: 'commit', timeout: 3_000 }), 4_000, 'restoring the page').catch(() => null);
        await waitQuiet(quiet, 200, 1_000);
        await withTimeout(page.evaluate(takeNavigations), 5_000, 'reading navigations').catch(() => []);
        if (page.url() !== origin) break; // could not restore without reloading: stop here
      }
      if (depth < opts.maxRevealDepth) enqueue(await scan(), depth + 1);
    }
  } finally {
    await page.unroute('**/*', guard).catch(() => {});
  }
  return result;
}

async function waitQuiet(quiet: QuietProbe, quietMs: number, capMs: number): Promise<void> {
  const end = Date.now() + capMs;
  await sleep(50);
  while (Date.now() < end) {
    if (await quiet(quietMs)) return;
    await sleep(50);
  }
}

async function newLinks(page: Page, known: Set<string>, source: 'click' | 'scroll'): Promise<FoundLink[]> {
  const now = await withTimeout(page.evaluate(extractPage), 10_000, 'reading the DOM').catch(() => null);
  const out: FoundLink[] = [];
  if (!now) return out;
  for (const l of [...now.links.map((x) => ({ href: x.href, text: x.text, rel: x.rel })), ...now.opened.map((href) => ({ href, text: '', rel: '' }))]) {
    if (known.has(l.href)) continue;
    known.add(l.href);
    out.push({ href: l.href, text: l.text, source, rel: l.rel });
  }
  return out;
}
