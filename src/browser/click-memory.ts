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
 * Concurrency: while a page is clicking a signature whose kind is not known yet, it holds a
 * claim on it. As many pages as looks are still needed (two, or one once a first page has
 * reported) may hold one at once, so the two looks that decide are taken side by side; a further
 * page meeting the signature is told to wait (it clicks other things first, then waits a bounded
 * time, then clicks anyway). So a chrome control is clicked on exactly two pages of a site
 * whatever the concurrency, unless a wait runs out.
 *
 * Templates: controls made by one piece of a site's code (every "Show example" toggle of an API
 * reference, each named after its own endpoint) have signatures of their own, so the rule above
 * never sees one twice. They share a template (see `ClickCandidate.template`). The first page
 * that clicks a template's controls clicks all of its own; every other page counts once
 * {@link BARREN_CLICKS_IN_PAGE} of its clicks of them revealed no link (settled looks), or once
 * its clicks are over having made fewer. When {@link BARREN_PAGES} pages count so, and no control
 * of the template ever revealed a link, the template is barren: its controls not yet known are
 * not clicked on any page but the first (which finishes its own). One control of it that reveals
 * a link makes it fruitful for good. While a template is undecided, as many pages as are still
 * needed to decide it may click its controls at once (as with a signature's claims); a further
 * page meeting one of its controls waits for their looks instead of clicking all of its own too.
 * An API reference of 20 link-less toggles a view: 20 + 3 clicks decide it, against 20 + 20 (and
 * 20 more for every view that met them meanwhile) when each deciding page clicked all of its own.
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

/**
 * Pages on which a template's clicks revealed no link before its controls are no longer clicked
 * (see the module comment).
 */
export const BARREN_PAGES = 2;

/**
 * Clicks of a template's controls that revealed no link after which a page other than the
 * template's first counts as one where it is barren (see the module comment). As with hovers
 * (three barren hovers of a template end its hovers on a page), three looks at controls of one
 * template stand for the rest of them on that page.
 */
export const BARREN_CLICKS_IN_PAGE = 3;

/** `click`: click it now (and report with `observe` or `release`); `skip`: do not; `wait`: another page is learning it. */
export type ClickVerdict = 'click' | 'skip' | 'wait';

/** Why a clickable is skipped: its clicks reveal the same links on every page (`chrome`), or its template reveals none (`template`). */
export type SkipReason = 'chrome' | 'template';

/** One page's view of the site's click memory. Signatures as built by `scanClickables`. */
export interface ClickPolicy {
  /** What to do with this signature (of this template, when known) now, without claiming it. */
  peek(signature: string, template?: string): ClickVerdict;
  /**
   * Like {@link peek}, and on `click` claim the signature for this page until
   * {@link observe} or {@link release}. `force` turns a `wait` into an unclaimed `click`.
   */
  take(signature: string, force: boolean, template?: string): ClickVerdict;
  /** Why {@link peek} says `skip` for this signature, or `null` when it does not. */
  skipReason(signature: string, template?: string): SkipReason | null;
  /** Report what the clicks of a taken signature revealed (ends the claim); the template learns from it too. */
  observe(signature: string, seen: ClickObservation, template?: string): void;
  /** Give up a claim without an observation (the click failed, the budget ran out). */
  release(signature: string): void;
  /**
   * Resolves the next time a claim on this memory ends or anything is learned (by {@link observe}
   * or {@link release}, on any page), so a page waiting on another page's claim can look again
   * at once. Absent on a policy that never says `wait`.
   */
  claimEnded?(): Promise<void>;
  /**
   * The page's clicks are over: what it clicked of a template counts (see `BARREN_CLICKS_IN_PAGE`),
   * and its claims on templates end. Absent on a policy that keeps nothing.
   */
  end?(): void;
}

/** `--click all`: every clickable on every page, nothing remembered. */
export const CLICK_EVERYWHERE: ClickPolicy = {
  peek: () => 'click',
  take: () => 'click',
  skipReason: () => null,
  observe: () => {},
  release: () => {},
};

/** How a signature's clicks turned out on the site. */
export type ClickKind = 'chrome' | 'per-page' | 'unknown';

interface Entry {
  kind: 'chrome' | 'per-page' | null;
  /** The first page's observation, until a second page decides the kind. */
  first: { page: string; revealed: Set<string> } | null;
  /** Pages holding a claim (at most as many as looks are still needed: see the module comment). */
  busy: Set<string>;
  /** Unsettled empty looks set aside so far (see {@link UNSETTLED_LOOKS}). */
  unsettled: number;
}

/** What a site's template of clickables has shown (see the module comment). */
interface TemplateEntry {
  /** `true` once a control of it revealed a link. */
  fruitful: boolean;
  /** Pages that count as ones where its clicks (settled looks) revealed no link. */
  barrenOn: Set<string>;
  /** The first page that clicked one of its controls (it clicks all of its own), or `null`. */
  first: string | null;
  /** Pages other than `first` and not yet in `barrenOn`: how many of their clicks revealed nothing. */
  barrenClicks: Map<string, number>;
  /** Pages looking at it now (from their first click of it until they count or their clicks end). */
  busy: Set<string>;
}

/** The click memory of one crawl process (see the module comment). */
export class ClickMemory {
  private readonly entries = new Map<string, Entry>();
  /** Per site and template: whether a control of it ever revealed a link, and the pages where its clicks revealed none. */
  private readonly templates = new Map<string, TemplateEntry>();
  /** Resolves when the next claim ends (see `ClickPolicy.claimEnded`); one promise shared by every page waiting now. */
  private nextClaimEnd: { promise: Promise<void>; resolve: () => void } | null = null;

  /** Wake every page waiting for a claim to end (see `ClickPolicy.claimEnded`). */
  private wakeWaiters(): void {
    this.nextClaimEnd?.resolve();
    this.nextClaimEnd = null;
  }

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
        e = { kind: null, first: null, busy: new Set(), unsettled: 0 };
        this.entries.set(key, e);
      }
      return e;
    };
    const tmpl = (template: string): TemplateEntry => {
      const key = `${site}|${template}`;
      let t = this.templates.get(key);
      if (!t) {
        t = { fruitful: false, barrenOn: new Set(), first: null, barrenClicks: new Map(), busy: new Set() };
        this.templates.set(key, t);
      }
      return t;
    };
    const known = (template: string | undefined): TemplateEntry | undefined => (template === undefined ? undefined : this.templates.get(`${site}|${template}`));
    const barren = (template: string | undefined): boolean => {
      const t = known(template);
      return t !== undefined && !t.fruitful && t.barrenOn.size >= BARREN_PAGES && t.first !== page;
    };
    /**
     * `true` when this page should wait before clicking a control of `template`: the template is
     * undecided, this page is not looking at it, and the pages looking at it now are as many as
     * are still needed to decide it.
     */
    const templateBusy = (template: string | undefined): boolean => {
      const t = known(template);
      if (!t || t.fruitful || t.first === page || t.barrenOn.has(page) || t.busy.has(page)) return false;
      let looking = 0;
      for (const p of t.busy) if (!t.barrenOn.has(p)) looking++;
      return t.barrenOn.size + looking >= BARREN_PAGES;
    };
    /** Templates this page looked at (their looks count, and end, with the page's clicks: `end`). */
    const lookedAt = new Set<string>();
    /** This page starts looking at `template` (its first page, when none has yet). */
    const lookAt = (template: string | undefined): void => {
      if (template === undefined) return;
      lookedAt.add(template);
      const t = tmpl(template);
      if (t.fruitful || t.barrenOn.has(page)) return;
      t.first ??= page;
      t.busy.add(page);
    };
    /** This page counts as one where `t` is barren; it no longer looks at it. */
    const counts = (t: TemplateEntry): void => {
      t.barrenOn.add(page);
      t.barrenClicks.delete(page);
      t.busy.delete(page);
    };
    const reason = (e: Entry, template: string | undefined): SkipReason | null => {
      if (e.kind === 'chrome') return 'chrome';
      // A control known to reveal links on its page is clicked whatever its template did elsewhere.
      if (e.kind === null && barren(template)) return 'template';
      return null;
    };
    const verdict = (e: Entry, template: string | undefined): ClickVerdict => {
      if (reason(e, template) !== null) return 'skip';
      if (e.kind === 'per-page') return 'click';
      if (!e.busy.has(page) && templateBusy(template)) return 'wait';
      // Two looks decide (one once a first page has reported): that many pages may look at once.
      return e.busy.has(page) || e.busy.size < (e.first ? 1 : 2) ? 'click' : 'wait';
    };
    return {
      peek: (sig, template) => verdict(entry(sig), template),
      skipReason: (sig, template) => reason(entry(sig), template),
      take: (sig, force, template) => {
        const e = entry(sig);
        const v = verdict(e, template);
        if (v === 'wait') return force ? 'click' : 'wait';
        if (v === 'click' && e.kind === null) {
          e.busy.add(page);
          lookAt(template);
        }
        return v;
      },
      observe: (sig, seen, template) => {
        const e = entry(sig);
        e.busy.delete(page);
        // Waiting pages look again once this call has returned (what it learned may also skip theirs).
        this.wakeWaiters();
        if (template !== undefined) {
          const t = tmpl(template);
          lookedAt.add(template);
          if (seen.revealed.size > 0) {
            t.fruitful = true;
            t.busy.clear();
          } else if (seen.settled && !t.barrenOn.has(page)) {
            const n = (t.barrenClicks.get(page) ?? 0) + 1;
            if (t.first === null || t.first === page || n >= BARREN_CLICKS_IN_PAGE) counts(t);
            else t.barrenClicks.set(page, n);
          }
        }
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
        if (entry(sig).busy.delete(page)) this.wakeWaiters();
      },
      end: () => {
        for (const template of lookedAt) {
          const t = tmpl(template);
          if (!t.fruitful && (t.barrenClicks.get(page) ?? 0) > 0) counts(t);
          t.busy.delete(page);
        }
        lookedAt.clear();
        this.wakeWaiters();
      },
      claimEnded: () => {
        if (!this.nextClaimEnd) {
          let resolve = (): void => {};
          const promise = new Promise<void>((r) => (resolve = r));
          this.nextClaimEnd = { promise, resolve };
        }
        return this.nextClaimEnd.promise;
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
