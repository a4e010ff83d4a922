/**
 * Click discovery on one page (`exploreClicks`). Over 400 lines: the click loop is one function
 * whose steps (scan, replay, click, read, restore, learn) share its local state (the queue, the
 * last scan, the page's links, the site memory's claims); split, each would take all of it.
 * @module
 */
import type { Page, Route } from 'playwright';
import { toRequestUrl } from '../url/normalize.js';
import { showsAgain, undoes } from './click-chain.js';
import { clickWithContext, readAfterClick, type AfterClick } from './click-reads.js';
import type { ClickCandidate } from './click-scripts.js';
import { clearNavigations, historyLength, recordNavigations, replaceUrlBack, takeNavigations } from './click-hooks.js';
import type { ClickOptions, ClickStep, ExploreResult } from './click-options.js';
import type { ExtractResult } from './page-scripts.js';
import { keepStorage, restoreStorage } from './storage-scripts.js';
import { asJsonExpression } from './json-result.js';
import { DOM_READ, evaluateLibraryJson, libraryExpression } from './page-library.js';
import { sleep, withTimeout } from './timeout.js';
import type { FoundLink, SettleWait } from './discovery.js';

export { scrollForLinks, type ScrollOptions } from './scroll.js';

/** Accessible names never clicked: destructive or session-ending actions. Extend with `--click-exclude`. */
export const DESTRUCTIVE_NAMES: readonly string[] = ['log ?out', 'sign ?out', 'log[ _-]?off', 'sign[ _-]?off', 'log[_-]out', 'sign[_-]out', 'delete', 'remove', 'unsubscribe', 'buy', 'pay', 'checkout', 'purchase', 'order now', 'deactivate', 'close account'];

/**
 * The accessible-name pattern of what is never clicked: {@link DESTRUCTIVE_NAMES} and `exclude`
 * (`--click-exclude`, regex sources), as one case-insensitive regex source.
 */
export function clickExcludePattern(exclude: readonly string[]): string {
  return [...DESTRUCTIVE_NAMES, ...exclude].map((p) => `(?:${p})`).join('|');
}

/** Longest wait (ms) for another page that is learning a clickable (see `ClickMemory`) before clicking it anyway. */
export const CLAIM_WAIT_MS = 5_000;
/** How often (ms) a page whose every clickable waits on other pages looks again when no claim has ended. */
const CLAIM_POLL_MS = 100;
/** Settled hovers of one template that revealed nothing on a page before its other elements there are left unhovered. */
const BARREN_HOVERS_IN_PAGE = 3;
/**
 * Least wait (ms) after a click that started something (see `clickWithContext`) before its effects
 * are judged: the requests it started must reach the crawler first.
 */
export const CLICK_REACTION_MS = 50;
/**
 * Click waits a click gets once more when its first wait ran out with nothing new in sight (its
 * effect may still be on its way: a slow answer, a busy machine), before it counts as revealing nothing.
 */
export const SLOW_CLICK_WAITS = 2;

export type { ClickOptions, ClickSkips, ClickStep, ExploreResult, RevealedHook } from './click-options.js';

export type { QuietProbe, SettleWait } from './discovery.js';

/** A clickable waiting for its turn. */
interface Turn {
  sig: string;
  /** The clickable's template (see `ClickCandidate.template`). */
  template: string;
  /** `true` while it is clicked again because its last click revealed new links ("Next", "Load more"). */
  chain: boolean;
  depth: number;
  /** Signatures clicked, in order, to bring the page into the state in which this clickable shows. */
  state: string[];
  /** Clicks made on it so far on this page. */
  clicks: number;
  /** When the site memory first said another page is learning it (ms since epoch), or `null`. */
  waitingSince: number | null;
  /** `true` while this page holds the site memory's claim on it. */
  claimed: boolean;
  /** What its clicks revealed so far (link identities), and every link seen meanwhile. */
  revealed: Set<string>;
  present: Set<string>;
  /** Link identities its last click added to the page (not there before that click). */
  lastShown: Set<string>;
  /**
   * While it is a chain: what its last click showed, once a control that click revealed undid it
   * (a pager's "Previous", enabled by the first "Next"; a carousel's back arrow); else `null`.
   * Its next click, which shows those links again, goes on with the chain though they are not new.
   */
  undone: Set<string> | null;
  /** `false` once one of its clicks' settle waits ran out (see `ClickObservation.settled`). */
  settled: boolean;
}

/** `true` when the read shows a link identity that is not in `before`. */
function revealsNew(look: AfterClick, before: ReadonlySet<string>): boolean {
  if (!look.page) return false;
  return look.page.links.some((l) => !before.has(identity(l.href))) || look.page.opened.some((h) => !before.has(identity(h)));
}

/** A URL as a page's identity: plain fragment dropped, hash route kept. */
function identity(u: string): string {
  try {
    return toRequestUrl(u);
  } catch {
    return u;
  }
}

/**
 * Click discovery: click the page's clickables (see `scanClickables`) one at a time, and after
 * each click capture (a) any navigation it caused or attempted — `pushState`, `replaceState`,
 * hash change, `window.open`, a document request — and restore the page, and (b) the `<a href>`
 * it revealed, plus clickables it revealed (up to `maxRevealDepth` rounds, depth first).
 *
 * - A clickable whose click revealed links not seen before on the page is clicked again (a
 *   pager's "Next", "Load more"), at most `repeat` more times, and not once it is gone, disabled
 *   (`disabled`, `aria-disabled="true"`), says it is on (a selected tab, an expanded
 *   disclosure), or a click revealed nothing new. Revealed clickables go before the repeat. Once
 *   such a click again took away every link the click before it showed (a disclosure that does
 *   not say it is open: a sidebar group), the other clickables of its template on the page are
 *   clicked once each.
 * - A click that navigates away (a `pushState`/hash change to another page, a document
 *   navigation) gives the clicked page one link, the target: what the page then shows belongs to
 *   the target, which is crawled as a page of its own. The page is restored with
 *   `history.back()` (no network request), or by putting the URL back after a `replaceState`.
 * - A clickable that is missing at its turn (a tab that re-rendered after going back) is looked
 *   for again after replaying the clicks that led to it (re-opening the tab); still missing, it
 *   is left unclicked and is not reported to the site memory.
 *
 * - With `onRevealed`, the first click of each clickable that changed the DOM and stayed on the
 *   page (an opened menu, a tab panel, a dialog) is told, with the clicks that led to that state,
 *   before the page is scanned again (the accessibility check of revealed states uses it).
 *
 * Safety while exploring: every non-GET request is aborted (nothing a click triggers may change
 * server state) and every document navigation of the main frame is recorded and aborted. A
 * refused navigation (a form sent by POST included) leaves the page's document as it was, so the
 * clicks go on. A form sent by POST into a new window is not sent (see `recordNavigations`). A
 * page that could not be restored all the same (its document replaced) ends its clicks: what is
 * left unclicked counts as skipped for `restore`, not `limit`.
 * @param known - hrefs already found on the page (updated; not reported again)
 * @param onClick - told right before each click, with the control's signature (the page's activity learns that what follows was asked for; what the page says next is the control's)
 * @param scanned - the page's clickables as a scan just read them (see `scanClickables`, with
 *   {@link clickExcludePattern} of `opts.exclude`), when nothing changed the page since; else scanned here
 */
export async function exploreClicks(
  page: Page,
  known: Set<string>,
  opts: ClickOptions,
  settleWait: SettleWait,
  onClick: (signature: string) => void = () => {},
  scanned?: ClickCandidate[],
): Promise<ExploreResult> {
  const result: ExploreResult = { links: [], clicks: 0, blocked: 0, skipped: { chrome: 0, template: 0, budget: 0, limit: 0, restore: 0 }, clicked: [] };
  const worked = new Set<string>();
  /** Tell `onClick` and note the control in `result.clicked` (once). */
  const working = (signature: string): void => {
    if (!worked.has(signature)) {
      worked.add(signature);
      result.clicked.push(signature);
    }
    onClick(signature);
  };
  /** Count a clickable left unclicked because the site memory says so. */
  const skippedByMemory = (sig: string, template: string): void => {
    const why = opts.policy.skipReason(sig, template);
    if (why) result.skipped[why]++;
  };
  const deadline = Date.now() + opts.budgetMs;
  const navigations: string[] = [];
  // A refused navigation of the page's document (a form sent by POST, a link followed) is
  // cancelled ('aborted'): for any other error Chromium commits its error page in the tab,
  // replacing the document being explored (and going back from there is a navigation of its own,
  // which this guard refuses too: click discovery on the page would be over). Other refused
  // requests are 'blockedbyclient', which the visit knows for the guard's, not the site's failures.
  const guard = async (route: Route): Promise<void> => {
    const req = route.request();
    const ofPage = req.isNavigationRequest() && req.frame() === page.mainFrame();
    if (req.method() !== 'GET' && req.method() !== 'HEAD' && req.method() !== 'OPTIONS') {
      result.blocked++;
      await route.abort(ofPage ? 'aborted' : 'blockedbyclient').catch(() => {});
      return;
    }
    if (ofPage) {
      navigations.push(req.url());
      result.blocked++;
      await route.abort('aborted').catch(() => {});
      return;
    }
    await route.fallback().catch(() => {});
  };
  const exclude = clickExcludePattern(opts.exclude);
  /**
   * The clickables as the page's last scan found them (their indexes are valid for the next
   * click), while nothing has been clicked or restored since; `null` = scan again.
   */
  let lastScan: ClickCandidate[] | null = null;
  const scanCall = libraryExpression((fn) => asJsonExpression(`${fn('scanClickables')}(${JSON.stringify(exclude)})`));
  const scan = async (): Promise<ClickCandidate[]> =>
    (lastScan = await withTimeout(evaluateLibraryJson<ClickCandidate[]>(page, scanCall), 5_000, 'scanning clickables').catch(() => []));
  // A control is found under the signature it was clicked by, also once its label has flipped
  // ("Expand" is now "Collapse": `clickedAs`).
  const find = (cands: ClickCandidate[], sig: string): ClickCandidate | undefined => cands.find((c) => c.signature === sig) ?? cands.find((c) => c.clickedAs === sig);
  const takeNavs = async (): Promise<string[]> => withTimeout(page.evaluate(takeNavigations), 5_000, 'reading navigations').catch(() => [] as string[]);
  // After a click, what it started (a fetch, a render, a timeout due soon) is waited for by the
  // page load's settle rule, at most clickWaitMs (less when the budget ends sooner, except in a
  // chain of clicks that keep revealing links, which the budget never cuts short).
  const settle = async (chain: boolean): Promise<boolean> => {
    await sleep(CLICK_REACTION_MS);
    return settleWait(chain ? opts.clickWaitMs : Math.min(opts.clickWaitMs, Math.max(0, deadline - Date.now())));
  };
  const addLink = (href: string, text: string, rel = ''): boolean => {
    if (known.has(href)) return false;
    known.add(href);
    result.links.push({ href, text, source: 'click', rel });
    return true;
  };
  /** Take in a read of the page's links: new ones become results; returns every link identity and how many were new. */
  const absorb = (now: ExtractResult | null): { all: Set<string>; fresh: number } => {
    const all = new Set<string>();
    let fresh = 0;
    if (!now) return { all, fresh };
    for (const l of [...now.links, ...now.opened.map((href) => ({ href, text: '', rel: '' }))]) {
      all.add(identity(l.href));
      if (addLink(l.href, l.text, l.rel)) fresh++;
    }
    return { all, fresh };
  };
  /** Read the page's links (see `absorb`). */
  const read = async (): Promise<{ all: Set<string>; fresh: number }> =>
    absorb(await withTimeout(evaluateLibraryJson<ExtractResult>(page, DOM_READ), 10_000, 'reading the DOM').catch(() => null));

  // Most pages have nothing to click, or only what the site memory already knows (site-wide
  // chrome), or what is on already (an open <details>, a selected tab: what it shows has been
  // read; a click would only close it): then the guard and the history hooks are not installed
  // (routing every request of the page through the crawler costs CPU on every page).
  const first = scanned ?? (await scan());
  lastScan = first;
  const initial = new Set<string>();
  const looked = new Set<string>();
  for (const c of first) {
    if (c.on || looked.has(c.signature)) continue;
    looked.add(c.signature);
    if (opts.policy.peek(c.signature, c.template) === 'skip') skippedByMemory(c.signature, c.template);
    else initial.add(c.signature);
  }
  if (!initial.size) return result;
  opts.beforeFirstClick?.();
  await page.route('**/*', guard);
  const claimed = new Set<string>();
  try {
    const origin = page.url();
    const home = identity(origin);
    // One call: the history hooks, and the page's Web Storage kept to be put back once the clicks
    // are over (what they stored must not change how later pages render: see storage-scripts.ts).
    const keep = opts.restoreStorage ? ` (${keepStorage.toString()})();` : '';
    await withTimeout(page.evaluate(`(${recordNavigations.toString()})();${keep}`), 5_000, 'hooking history');
    /**
     * Forget the navigations the page recorded, and read its document's URL there, where it is
     * never behind (see `clearNavigations`); `null` when the call fails.
     */
    const documentUrl = async (): Promise<string | null> => withTimeout(page.evaluate(clearNavigations), 2_000, 'reading the URL').catch(() => null);
    /**
     * Undo a click that navigated away; `false` when the page could not be restored without reloading.
     * @param at - where the page is, when known better than `page.url()` (see {@link documentUrl})
     */
    const restore = async (historyBefore: number, at = page.url()): Promise<boolean> => {
      if (at !== origin) {
        const grew = (await withTimeout(page.evaluate(historyLength), 2_000, 'reading history').catch(() => historyBefore)) > historyBefore;
        if (grew) await withTimeout(page.goBack({ waitUntil: 'commit', timeout: 3_000 }), 4_000, 'restoring the page').catch(() => null);
        else await withTimeout(page.evaluate(replaceUrlBack, origin), 2_000, 'restoring the URL').catch(() => null);
        await sleep(CLICK_REACTION_MS);
        await settleWait(Math.min(1_000, Math.max(0, deadline - Date.now())));
      }
      const now = (await documentUrl()) ?? page.url();
      navigations.length = 0;
      return identity(now) === home;
    };
    /**
     * After a click call that failed: `true` while the page is still the one explored, or once it
     * is restored (see `restore`). The call may have failed because the click took the page away by
     * a navigation that makes no request, which the guard never sees (to `about:blank`).
     */
    const stayed = async (): Promise<boolean> => {
      // Twice: the first call may meet the document going away.
      const at = (await documentUrl()) ?? (await documentUrl()) ?? page.url();
      return identity(at) === home || restore(0, at);
    };
    const seenSigs = new Set<string>();
    /** Name and kind of each clickable seen, for naming revealed states. */
    const steps = new Map<string, ClickStep>();
    const fresh = (cands: ClickCandidate[], depth: number, state: string[]): Turn[] => {
      const out: Turn[] = [];
      for (const c of cands) {
        if (!steps.has(c.signature)) steps.set(c.signature, { name: c.name, kind: c.kind });
        // A control clicked already under another name is that control, not a new one: clicking
        // it as new would only undo its click ("Collapse" after "Expand").
        if (seenSigs.has(c.signature) || c.clickedAs !== undefined) continue;
        seenSigs.add(c.signature);
        out.push({ sig: c.signature, template: c.template, chain: false, depth, state, clicks: 0, waitingSince: null, claimed: false, revealed: new Set(), present: new Set(), lastShown: new Set(), undone: null, settled: true });
      }
      return out;
    };
    /** Report a turn's clicks to the site memory (or give its claim back). */
    const done = (t: Turn): void => {
      if (!t.claimed) return;
      t.claimed = false;
      claimed.delete(t.sig);
      if (t.clicks > 0) opts.policy.observe(t.sig, { revealed: t.revealed, present: t.present, settled: t.settled }, t.template);
      else opts.policy.release(t.sig);
    };
    let dom: Set<string> | null = null;
    /**
     * Per template of hovered elements on this page: how many settled hovers revealed nothing,
     * and the templates one of whose hovers revealed something. A row highlight or a tooltip
     * wired with `mouseenter` on every row reveals nothing: after {@link BARREN_HOVERS_IN_PAGE}
     * such hovers its other elements are not hovered on this page (a menu bar whose first item
     * opens a menu keeps every item hovered).
     */
    const hoverBarren = new Map<string, number>();
    const hoverFruitful = new Set<string>();
    /** Templates of clickables found to close again on a second click (see below): clicked once each. */
    const toggles = new Set<string>();
    /** Bring the page back into `state` by clicking what is not on already; `false` if it went away. */
    const replay = async (state: string[]): Promise<boolean> => {
      for (const sig of state) {
        if (result.clicks >= opts.limit || Date.now() >= deadline) return true;
        const c = find(await scan(), sig);
        if (!c) return true;
        // On already, or clicked already and showing its other state: the state is there.
        if (c.on || c.signature !== sig) continue;
        lastScan = null;
        working(c.signature);
        const made = await clickWithContext(page, c.index, exclude);
        if (!made.clicked) return stayed();
        const before = made.historyBefore;
        result.clicks++;
        dom = null;
        if (!made.after) await settle(false);
        const navs = [...navigations.splice(0), ...(await takeNavs())];
        if (navs.some((u) => identity(u) !== home) || identity(page.url()) !== home) return restore(before);
      }
      return true;
    };

    // Every clickable on the page is seen (one that a later click turns off is not "revealed");
    // those to click are queued.
    const queue: Turn[] = fresh(first, 0, []).filter((t) => initial.has(t.sig));
    /** `true` while a deferred clickable must still wait for another page's claim on it. */
    const stillWaiting = (q: Turn): boolean =>
      q.waitingSince !== null && Date.now() - q.waitingSince < CLAIM_WAIT_MS && opts.policy.peek(q.sig, q.template) === 'wait';
    /** Links already told to `onFound`. */
    let told = 0;
    const tell = (): void => {
      if (result.links.length === told) return;
      opts.onFound?.(result.links.slice(told));
      told = result.links.length;
    };
    /** `true` once the page could not be restored after a click (see `restore`): its clicks are over. */
    let lost = false;
    while (queue.length && result.clicks < opts.limit) {
      tell();
      // Only clickables that another page is still learning are left: look again when a claim
      // ends (or after CLAIM_POLL_MS, to see when one has waited CLAIM_WAIT_MS). One whose verdict
      // came meanwhile (learned as chrome: skip; given back: click) or whose wait is over is
      // taken at once: after a claim ends, the rest of the deferred clickables are not waited for
      // one by one.
      if (queue.every((q) => stillWaiting(q))) {
        const ended = opts.policy.claimEnded?.();
        await (ended ? Promise.race([ended, sleep(CLAIM_POLL_MS)]) : sleep(CLAIM_POLL_MS));
      }
      const turn = queue.shift()!;
      // Past the budget, only a chain that keeps revealing links goes on.
      if (Date.now() >= deadline && !turn.chain) {
        result.skipped.budget++;
        done(turn);
        continue;
      }
      const forced = turn.waitingSince !== null && Date.now() - turn.waitingSince >= CLAIM_WAIT_MS;
      const defer = (): void => {
        turn.waitingSince ??= Date.now();
        queue.push(turn);
      };
      if (!turn.claimed) {
        const v = opts.policy.peek(turn.sig, turn.template);
        if (v === 'skip') {
          skippedByMemory(turn.sig, turn.template);
          continue;
        }
        if (v === 'wait' && !forced) {
          defer();
          continue;
        }
      }
      let target = find(lastScan ?? (lastScan = await scan()), turn.sig);
      if (!target && turn.state.length) {
        if (!(await replay(turn.state))) {
          // Not clicked: left with the rest.
          queue.unshift(turn);
          lost = true;
          break;
        }
        target = find(await scan(), turn.sig);
      }
      if (!target || (target.on && turn.clicks === 0)) {
        // Gone, disabled, or on already: not clicked, so nothing is learned from it. One that is
        // gone may be revealed again by a later click.
        if (!target && turn.clicks === 0) seenSigs.delete(turn.sig);
        done(turn);
        continue;
      }
      if (target.action === 'hover' && !hoverFruitful.has(turn.template) && (hoverBarren.get(turn.template) ?? 0) >= BARREN_HOVERS_IN_PAGE) {
        result.skipped.template++;
        done(turn);
        continue;
      }
      if (!turn.claimed) {
        const v = opts.policy.take(turn.sig, forced, turn.template);
        if (v === 'skip') {
          skippedByMemory(turn.sig, turn.template);
          continue;
        }
        if (v === 'wait') {
          defer();
          continue;
        }
        turn.claimed = true;
        claimed.add(turn.sig);
      }
      const before = dom ?? (await read()).all;
      const firstClick = turn.clicks === 0;
      working(turn.sig);
      const made = await clickWithContext(page, target.index, exclude);
      lastScan = null;
      if (!made.clicked) {
        done(turn);
        if (await stayed()) continue;
        // The click was made, and took the page where it cannot be brought back from.
        result.clicks++;
        lost = true;
        break;
      }
      const changedBefore = opts.onRevealed && firstClick ? made.changedBefore : null;
      const historyBefore = made.historyBefore;
      result.clicks++;
      turn.clicks++;
      // A click that started nothing that can still change the page was read in its own call
      // (see `clickWithContext`); any other is waited for by the settle rule, then read.
      let settled = made.after ? true : await settle(turn.chain);
      for (const u of before) turn.present.add(u);
      turn.present.add(home);
      // (a) navigations the click caused or attempted: links of this page
      const attempted = navigations.splice(0);
      // One call reads what the click did: its navigations, the DOM, the mutation clock and the clickables.
      let look = made.after ?? (await readAfterClick(page, exclude));
      if (!settled && look.navigations.length === 0 && !revealsNew(look, before)) {
        // The click's wait ran out with nothing new in sight: its effect may still be on its way
        // (a slow answer, a busy machine). One more wait before it counts as revealing nothing,
        // so a "Next" chain is not cut short by a slow step.
        settled = await settleWait(opts.clickWaitMs * SLOW_CLICK_WAITS).catch(() => false);
        look = await readAfterClick(page, exclude);
      }
      // A click whose waits both ran out makes the clickable's looks no evidence (see `ClickObservation.settled`).
      if (!settled) turn.settled = false;
      const pushed = look.navigations;
      for (const href of [...attempted, ...pushed]) {
        addLink(href, target.name);
        turn.revealed.add(identity(href));
        turn.present.add(identity(href));
      }
      if (attempted.length || pushed.some((u) => identity(u) !== home) || identity(page.url()) !== home) {
        // What the page shows now is the target's, not this page's: go back, read nothing.
        dom = null;
        done(turn);
        if (!(await restore(historyBefore))) {
          lost = true;
          break;
        }
        continue;
      }
      // (b) links it revealed, and clickables it revealed
      const after = absorb(look.page);
      dom = after.all;
      const shown = new Set<string>();
      for (const u of after.all) {
        turn.present.add(u);
        if (!before.has(u)) {
          turn.revealed.add(u);
          shown.add(u);
        }
      }
      // A click again that took away every link the click before it showed, and showed none, closed
      // what that click opened: the clickable is a disclosure without `aria-expanded` (a sidebar
      // group), and so are the other clickables of its template on this page.
      if (turn.clicks > 1 && undoes(turn.lastShown, after.all, after.fresh)) toggles.add(turn.template);
      turn.lastShown = shown;
      // A chain's click that brings back the step a control it revealed had undone (see below)
      // goes on with the chain: the next click shows what is new.
      const redone = turn.undone !== null && showsAgain(turn.undone, after.all);
      turn.undone = null;
      // A control a chain's click revealed, whose click undid that click (the pager's "Previous",
      // enabled by "Next"): the chain's next click only takes the page back to its step.
      const parent = turn.depth > 0 ? queue.find((q) => q.chain && q.sig === turn.state[turn.state.length - 1]) : undefined;
      if (parent && undoes(parent.lastShown, after.all, after.fresh)) parent.undone = new Set(parent.lastShown);
      let cands = look.clickables;
      if (changedBefore !== null && opts.onRevealed && Date.now() < deadline) {
        // The first click of this clickable changed the page in place: a state of its own.
        const changedAfter = look.page ? look.changed : changedBefore;
        if (changedAfter > changedBefore) {
          const chain = [...turn.state, turn.sig].map((sig) => steps.get(sig) ?? { name: '', kind: 'element' });
          await opts.onRevealed(chain, deadline - Date.now()).catch(() => {});
          // The hook worked on the page: its clickables are scanned again.
          cands = await scan();
        }
      }
      lastScan = cands;
      const revealed = turn.depth < opts.maxRevealDepth ? fresh(cands, turn.depth + 1, [...turn.state, turn.sig]) : [];
      const self = find(cands, turn.sig);
      if (target.action === 'hover') {
        if (after.fresh > 0 || revealed.length > 0) hoverFruitful.add(turn.template);
        else if (settled) hoverBarren.set(turn.template, (hoverBarren.get(turn.template) ?? 0) + 1);
      }
      // A hover or a chosen option shows the same again: only clicks are repeated.
      if ((after.fresh > 0 || redone) && turn.clicks <= opts.repeat && self && !self.on && self.action === undefined && !toggles.has(turn.template)) {
        // Again ("Next", "Load more"), after what this click revealed.
        turn.state = [...turn.state, turn.sig];
        turn.chain = true;
        queue.unshift(...revealed, turn);
      } else {
        done(turn);
        queue.unshift(...revealed);
      }
    }
    tell();
    // What is left unclicked: the page was lost, or else the most clicks were made.
    result.skipped[lost ? 'restore' : 'limit'] += queue.length;
  } finally {
    for (const sig of claimed) opts.policy.release(sig);
    opts.policy.end?.();
    if (opts.restoreStorage) await withTimeout(page.evaluate(restoreStorage), 5_000, 'restoring storage').catch(() => 0);
    await page.unroute('**/*', guard).catch(() => {});
  }
  return result;
}
