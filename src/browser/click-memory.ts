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
 * never sees one twice. They share a template (see `ClickCandidate.template`). When the clicks of
 * a template's controls revealed no link on {@link BARREN_PAGES} pages (settled looks), and no
 * control of it ever revealed one, the template is barren: its controls not yet known are not
 * clicked on the rest of the site, nor on the pages that gave that evidence once it is in (the
 * second page clicks one control of a template, not all of them). One control of it that reveals
 * a link makes it fruitful for good. While a template is undecided, as many pages as are still
 * needed to decide it may click its controls at once (as with a signature's claims); a further
 * page meeting one of its controls waits for their looks. On the shared TypeDoc site the three
 * filter labels and the three theme options were clicked on three pages before (the second looks
 * split between two pages that learned at once), on two now.
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
  /** Pages where its clicks (settled looks) revealed no link. */
  barrenOn: Set<string>;
  /** Pages clicking one of its controls now, not yet in `barrenOn`, with how many claims each holds. */
  busy: Map<string, number>;
}

/** The click memory of one crawl process (see the module comment). */
export class ClickMemory {
  private readonly entries = new Map<string, Entry>();
  /** Per site and template: whether a control of it ever revealed a link, and the pages where its clicks revealed none. */
  private readonly templates = new Map<string, TemplateEntry>();
  /** The template of each claim a page holds on a control of an undecided template, by site, page and signature. */
  private readonly heldTemplates = new Map<string, string>();
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
        t = { fruitful: false, barrenOn: new Set(), busy: new Map() };
        this.templates.set(key, t);
      }
      return t;
    };
    const barren = (template: string | undefined): boolean => {
      if (template === undefined) return false;
      const t = this.templates.get(`${site}|${template}`);
      return t !== undefined && !t.fruitful && t.barrenOn.size >= BARREN_PAGES;
    };
    /**
     * `true` when this page should wait before clicking a control of `template`: the template is
     * undecided, this page has not looked at it, and the pages looking at it now are as many as
     * are still needed to decide it.
     */
    const templateBusy = (template: string | undefined): boolean => {
      if (template === undefined) return false;
      const t = this.templates.get(`${site}|${template}`);
      if (!t || t.fruitful || t.barrenOn.has(page) || t.busy.has(page)) return false;
      let looking = 0;
      for (const p of t.busy.keys()) if (!t.barrenOn.has(p)) looking++;
      return t.barrenOn.size + looking >= BARREN_PAGES;
    };
    const claimTemplate = (sig: string, template: string | undefined): void => {
      const key = `${site}|${page}|${sig}`;
      if (template === undefined || this.heldTemplates.has(key)) return;
      const t = tmpl(template);
      if (t.fruitful || t.barrenOn.has(page)) return;
      t.busy.set(page, (t.busy.get(page) ?? 0) + 1);
      this.heldTemplates.set(key, template);
    };
    const unclaimTemplate = (sig: string): void => {
      const key = `${site}|${page}|${sig}`;
      const template = this.heldTemplates.get(key);
      if (template === undefined) return;
      this.heldTemplates.delete(key);
      const t = tmpl(template);
      const n = (t.busy.get(page) ?? 1) - 1;
      if (n > 0) t.busy.set(page, n);
      else t.busy.delete(page);
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
          claimTemplate(sig, template);
        }
        return v;
      },
      observe: (sig, seen, template) => {
        const e = entry(sig);
        e.busy.delete(page);
        unclaimTemplate(sig);
        // Waiting pages look again once this call has returned (what it learned may also skip theirs).
        this.wakeWaiters();
        if (template !== undefined) {
          const t = tmpl(template);
          if (seen.revealed.size > 0) t.fruitful = true;
          else if (seen.settled) t.barrenOn.add(page);
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
        unclaimTemplate(sig);
        if (entry(sig).busy.delete(page)) this.wakeWaiters();
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
