/**
 * What click discovery learned about a site's clickables (`--click auto`): which ones are
 * navigation chrome (their clicks reveal the same links on every page: clicked on two pages,
 * then never again) and which ones belong to their page (a "Versions" tab, "Show replies":
 * clicked on every page that has them).
 *
 * The rule comes from what the clicks revealed, never from names: the first page that clicks a
 * signature keeps the links the clicks revealed; the next page that clicks it compares. Same
 * links (nothing revealed that the first page did not reveal, and everything the first page
 * revealed is on the second page too) → chrome. Anything else → per page.
 *
 * A click whose page had not settled when the click wait ran out, and that revealed nothing, is
 * no evidence: its effect may still have been on its way (a slow fetch, a busy machine), and two
 * such empty looks would make a per-page control look like chrome that reveals nothing. Such a
 * look leaves the signature unknown, so the next page clicks it again; only after
 * {@link UNSETTLED_LOOKS} of them (a site that never goes quiet) does one count.
 *
 * Concurrency: while one page is clicking a signature whose kind is not known yet, it holds a
 * claim on it; another page meeting the same signature is told to wait (it clicks other things
 * first, then waits a bounded time, then clicks anyway). So a chrome control is clicked on
 * exactly two pages of a site whatever the concurrency, unless a wait runs out.
 *
 * The memory lives in one process: with a shared (Redis) crawl each worker learns on its own, so
 * chrome costs at most two clicks per worker and site, and no per-page control is ever skipped
 * because of another worker.
 * @module
 */

/** What one page's clicks on one clickable showed. Links are absolute URLs, plain fragment dropped. */
export interface ClickObservation {
  /** Links the clicks added to the page (not in the DOM before them), plus the URLs they navigated to. */
  revealed: ReadonlySet<string>;
  /** Every link on the page while clicking: before and after the clicks, navigation targets, the page's own URL. */
  present: ReadonlySet<string>;
  /** `false` when a click's wait for the page to settle ran out (see the module comment). */
  settled: boolean;
}

/**
 * How many unsettled looks that revealed nothing a signature may get before such a look counts
 * as an observation (see the module comment): bounds the extra clicks on a site that never goes
 * quiet to this many per signature.
 */
export const UNSETTLED_LOOKS = 3;

/** `click`: click it now (and report with `observe` or `release`); `skip`: do not; `wait`: another page is learning it. */
export type ClickVerdict = 'click' | 'skip' | 'wait';

/** One page's view of the site's click memory. Signatures as built by `scanClickables`. */
export interface ClickPolicy {
  /** What to do with this signature now, without claiming it. */
  peek(signature: string): ClickVerdict;
  /**
   * Like {@link peek}, and on `click` claim the signature for this page until
   * {@link observe} or {@link release}. `force` turns a `wait` into an unclaimed `click`.
   */
  take(signature: string, force: boolean): ClickVerdict;
  /** Report what the clicks of a taken signature revealed (ends the claim). */
  observe(signature: string, seen: ClickObservation): void;
  /** Give up a claim without an observation (the click failed, the budget ran out). */
  release(signature: string): void;
}

/** `--click all`: every clickable on every page, nothing remembered. */
export const CLICK_EVERYWHERE: ClickPolicy = {
  peek: () => 'click',
  take: () => 'click',
  observe: () => {},
  release: () => {},
};

/** How a signature's clicks turned out on the site. */
export type ClickKind = 'chrome' | 'per-page' | 'unknown';

interface Entry {
  kind: 'chrome' | 'per-page' | null;
  /** The first page's observation, until a second page decides the kind. */
  first: { page: string; revealed: Set<string> } | null;
  /** Page holding the claim, or `null`. */
  busy: string | null;
  /** Unsettled empty looks set aside so far (see {@link UNSETTLED_LOOKS}). */
  unsettled: number;
}

/** The click memory of one crawl process (see the module comment). */
export class ClickMemory {
  private readonly entries = new Map<string, Entry>();

  /**
   * The policy for one page.
   * @param site - the page's origin (signatures are compared within one site)
   * @param page - the page's canonical URL (two observations must come from two pages)
   */
  forPage(site: string, page: string): ClickPolicy {
    const entry = (sig: string): Entry => {
      const key = `${site}|${sig}`;
      let e = this.entries.get(key);
      if (!e) {
        e = { kind: null, first: null, busy: null, unsettled: 0 };
        this.entries.set(key, e);
      }
      return e;
    };
    const verdict = (e: Entry): ClickVerdict => {
      if (e.kind === 'chrome') return 'skip';
      if (e.kind === 'per-page') return 'click';
      return e.busy !== null && e.busy !== page ? 'wait' : 'click';
    };
    return {
      peek: (sig) => verdict(entry(sig)),
      take: (sig, force) => {
        const e = entry(sig);
        const v = verdict(e);
        if (v === 'wait') return force ? 'click' : 'wait';
        if (v === 'click' && e.kind === null) e.busy = page;
        return v;
      },
      observe: (sig, seen) => {
        const e = entry(sig);
        if (e.busy === page) e.busy = null;
        if (e.kind !== null) return;
        if (!seen.settled && seen.revealed.size === 0 && e.unsettled < UNSETTLED_LOOKS) {
          e.unsettled++;
          return;
        }
        if (!e.first || e.first.page === page) {
          e.first = { page, revealed: new Set(seen.revealed) };
          return;
        }
        e.kind = sameReveal(e.first.revealed, seen) ? 'chrome' : 'per-page';
        e.first = null;
      },
      release: (sig) => {
        const e = entry(sig);
        if (e.busy === page) e.busy = null;
      },
    };
  }

  /** What was learned about a signature on a site (for tests and diagnostics). */
  kindOf(site: string, signature: string): ClickKind {
    return this.entries.get(`${site}|${signature}`)?.kind ?? 'unknown';
  }
}

/**
 * `true` when a second page's clicks revealed what the first page's did: nothing the first did
 * not reveal, and every link the first revealed is on the second page (revealed there, or there
 * already, like a link to the page itself).
 */
function sameReveal(first: ReadonlySet<string>, second: ClickObservation): boolean {
  for (const u of second.revealed) if (!first.has(u)) return false;
  for (const u of first) if (!second.present.has(u)) return false;
  return true;
}
