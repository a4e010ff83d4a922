/**
 * The shapes of click discovery (`exploreClicks` in `explore.ts`): its options, what it found,
 * and the hook told about the states its clicks revealed.
 * @module
 */
import type { ClickPolicy } from './click-memory.js';
import type { FoundLink } from './discovery.js';

/** One click that led to a state of the page: the clickable's accessible name and its role (or tag). */
export interface ClickStep {
  name: string;
  kind: string;
}

/**
 * Told about a state a click revealed: `steps` are the clicks that led to it, the last one
 * first clicked just now; `budgetLeftMs` is what is left of the page's click budget (ms).
 */
export type RevealedHook = (steps: ClickStep[], budgetLeftMs: number) => Promise<void>;

/** How click discovery behaves on one page. */
export interface ClickOptions {
  /** Most clicks on this page, repeats and replays included. @default 100 */
  limit: number;
  /** Extra accessible-name patterns never clicked (regex sources, case-insensitive). */
  exclude: readonly string[];
  /**
   * Which clickables to click, per signature (role or tag, accessible name, nearest landmark),
   * asked only once the clickable was found on the page: `--click auto` uses the site's
   * `ClickMemory`, `--click all` clicks everything (`CLICK_EVERYWHERE`).
   */
  policy: ClickPolicy;
  /**
   * Most repeats of one clickable on the page: a clickable is clicked again while each click
   * reveals links not seen before on the page ("Next", "Load more"). @default 20 (`--click-repeat`)
   */
  repeat: number;
  /** Longest wait for the page to go quiet after one click (ms). @default 1000 */
  clickWaitMs: number;
  /** Time budget for all clicks on the page (ms). */
  budgetMs: number;
  /** How many rounds of revealed clickables are followed (a click that reveals clickables that reveal …). @default 2 */
  maxRevealDepth: number;
  /**
   * Called once per distinct clickable, after its first click changed the page's DOM without
   * navigating (an opened menu, a tab panel, a dialog), before anything else is clicked; its
   * time counts against `budgetMs`. Absent = nothing is told.
   */
  onRevealed?: RevealedHook;
  /**
   * Put the page's `localStorage` and `sessionStorage` back as they were before its first click
   * once its clicks are over (see `storage-scripts.ts`), so that what a click stored does not
   * change how later pages render. Off while logged in: an app may keep its session in Web
   * Storage (a token it rotates), and an old one put back could end the session. @default false
   */
  restoreStorage?: boolean;
  /** Called once, right before the page's first click (not when nothing is to be clicked). Absent = nothing is told. */
  beforeFirstClick?: () => void;
  /** Told of the links clicks found, after each click that found any (they are in the result too). Absent = nothing is told. */
  onFound?: (links: readonly FoundLink[]) => void;
}

/** What exploring found. */
export interface ExploreResult {
  links: FoundLink[];
  clicks: number;
  /** Non-GET requests and document navigations that were blocked while clicking. */
  blocked: number;
  /** Clickables found and not clicked, by reason (see {@link ClickSkips}). */
  skipped: ClickSkips;
  /** The signatures of the controls worked, each once, in the order first worked (replays included). */
  clicked: string[];
}

/**
 * Clickables a page found and did not click, by reason: `chrome` (the site memory knows their
 * clicks reveal the same links on every page), `template` (their template's clicks revealed no
 * link on other pages, see `ClickMemory`), `budget` (the page's click time ran out; a click that
 * keeps revealing new links is never cut short by it), `limit` (the page's most clicks was
 * reached), `restore` (a click took the page where it could not be brought back from without
 * reloading it, its document replaced: the page's clicks stopped there).
 */
export interface ClickSkips {
  chrome: number;
  template: number;
  budget: number;
  limit: number;
  restore: number;
}
