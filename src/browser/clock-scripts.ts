/**
 * The page's clock, code that runs inside the page: the time of its last DOM change and of the last
 * change to its links and title, installed before the page's own scripts, and the reading of the
 * link clock. The settle rule (`settle-scripts.ts`) and the extract stage read them. Each function
 * is serialized by Playwright and must not close over anything outside its own body.
 * @module
 */

/**
 * What {@link installMutationClock} keeps on `window.__spacrawl` (with the counters
 * `installScheduleWatch` adds). Times are `performance.now()` values of the frame.
 */
export interface ClockState {
  /** Last DOM mutation of any kind (shadow roots included). */
  last: number;
  /**
   * Last DOM mutation that is more than a `style` or `class` attribute change: such changes move
   * pixels (transitions, highlights, visibility), never the links, the title or the text's nodes.
   */
  content: number;
  /**
   * Last change to what the extract stage reads as links or title: a link (`<a>`, `<area>`,
   * `<iframe>`, `<frame>`) or an element holding one added or removed, a link's attributes or
   * text changed, a shadow root holding links attached, `document.title` changed.
   */
  linkChange: number;
  /** URLs passed to `window.open` (not opened). */
  opened: string[];
  /**
   * Clicks on `download` links that start a download (the link's URL is same-origin, `blob:` or
   * `data:`; HTML "downloading resources"), with their time; the last 20
   * are kept. The event is kept because a handler may still cancel it after this listener ran:
   * such a click downloads nothing and is not counted (see `installSettleProbe`).
   */
  downloadClicks: Array<{ event: Event; at: number }>;
  /** Closed shadow roots the page attached, by host (the extract stage reads their links too). */
  closedRoots: WeakMap<Element, ShadowRoot>;
}

/**
 * Init script, run in every frame before the page's own scripts: records on `window.__spacrawl`
 * the time of the last DOM mutation (including inside shadow roots attached later) and of the
 * last change to the links and the title (see {@link ClockState.linkChange}); counts clicks on
 * `download` links (their request is the browser's, not the page's, so the network tracking does
 * not see it); keeps closed shadow roots for the extraction; takes out speculation rules
 * (`<script type=speculationrules>`) before the browser prefetches or prerenders what they
 * name; replaces `window.open` so
 * popups are recorded as links instead of opened; and keeps `history.back()`, `forward()` and
 * `go(n)` within the document's own entries: a crawl's tab is reused, so the entry before a
 * visited page is the page of an earlier, unrelated visit (never the page a person came from),
 * and going there would record a forward that does not exist. Going back within the document
 * (entries an app pushed) works as before, and counts as scheduled work until its `popstate`
 * (at most 1 s: the traversal runs in a later task, and an app renders the entry there); a
 * reload (`go(0)`) goes as before.
 */
export function installMutationClock(): void {
  const w = window as unknown as { __spacrawl?: object };
  if (w.__spacrawl) return;
  const now = performance.now();
  const state: ClockState = { last: now, content: now, linkChange: now, opened: [], downloadClicks: [], closedRoots: new WeakMap() };
  w.__spacrawl = state;
  window.addEventListener(
    'click',
    (e) => {
      const t = e.target as Element | null;
      const link = t && typeof t.closest === 'function' ? (t.closest('a[download][href], area[download][href]') as HTMLAnchorElement | HTMLAreaElement | null) : null;
      if (!link) return;
      // The `download` attribute is ignored for a URL of another origin (that click navigates,
      // which the network tracking sees) and for schemes that fetch nothing (javascript:, mailto:).
      let url: URL;
      try {
        url = new URL(link.href);
      } catch {
        return;
      }
      if (url.origin !== location.origin && url.protocol !== 'blob:' && url.protocol !== 'data:') return;
      state.downloadClicks.push({ event: e, at: performance.now() });
      if (state.downloadClicks.length > 20) state.downloadClicks.shift();
    },
    true,
  );
  // What the extract stage reads as a link: anchors and areas (SVG <a> included), and frames.
  const LINKS = 'a, area, iframe, frame';
  const hosts = new Set<Element>();
  let title = '';
  const holdsLinks = (n: Node): boolean => {
    if (n.nodeType !== 1) return false;
    const el = n as Element;
    if (el.matches(LINKS) || el.querySelector(LINKS) !== null || el.shadowRoot?.querySelector(LINKS)) return true;
    // A host whose (possibly closed) shadow root holds links, inside the subtree.
    if (hosts.size > 500) return el.childElementCount > 0;
    for (const h of hosts) if (h === el || el.contains(h)) return true;
    return false;
  };
  const inLink = (n: Node | null): boolean => {
    const el = n && (n.nodeType === 1 ? (n as Element) : n.parentElement);
    return !!el && typeof el.closest === 'function' && el.closest('a, area') !== null;
  };
  const changesLinks = (r: MutationRecord): boolean => {
    if (r.type === 'attributes') return r.attributeName !== 'style' && r.attributeName !== 'class' && (r.target as Element).matches(LINKS);
    if (r.type === 'characterData') return inLink(r.target);
    if (inLink(r.target)) return true;
    for (const n of Array.from(r.addedNodes)) if (holdsLinks(n)) return true;
    for (const n of Array.from(r.removedNodes)) if (holdsLinks(n)) return true;
    return false;
  };
  const pixels = (r: MutationRecord): boolean => r.type === 'attributes' && (r.attributeName === 'style' || r.attributeName === 'class');
  /** Script elements looked at already (see `dropSpeculationRules`). */
  const seenScripts = new WeakSet<Element>();
  /**
   * Speculation rules are taken out as they are inserted, before the browser reads them (its
   * update of the candidates is a microtask queued after this observer's): the browser would
   * prefetch or prerender the URLs they name itself, where no robots.txt check, scope or
   * politeness reaches (HTML "speculative loading"). Looked for among the scripts of `root` (the
   * document's `document.scripts`, a shadow root's own), each once, not among the nodes each
   * record added: a page's scripts are a few dozen, its parser's records thousands, and reading a
   * node from script costs its wrapper (the whole callback on TypeDoc's pages, idle machine: 0.9-3.1
   * ms a page, against 4.5-14.4 when it looked at every added node).
   */
  const dropSpeculationRules = (root: Node): void => {
    const scripts = root === document ? document.scripts : (root as ShadowRoot).querySelectorAll('script');
    // From the end: `document.scripts` is live, and a removed script leaves it.
    for (let i = scripts.length - 1; i >= 0; i--) {
      const script = scripts[i] as HTMLScriptElement;
      if (seenScripts.has(script)) continue;
      if (script.type.trim().toLowerCase() === 'speculationrules') script.remove();
      // An empty inline script has not started (HTML "prepare the script element"): given a type
      // and text later, it is prepared then, so it is looked at again until it has some.
      else if (script.src !== '' || script.text !== '') seenScripts.add(script);
    }
  };
  const mark = (records: MutationRecord[], root: Node): void => {
    if (records.some((r) => r.type === 'childList')) dropSpeculationRules(root);
    const t = performance.now();
    state.last = t;
    if (!records.every(pixels)) state.content = t;
    if (document.title !== title) {
      title = document.title;
      state.linkChange = t;
      return;
    }
    for (const r of records) {
      if (changesLinks(r)) {
        state.linkChange = t;
        return;
      }
    }
  };
  const observe = (node: Node): void => {
    try {
      new MutationObserver((records) => mark(records, node)).observe(node, { subtree: true, childList: true, attributes: true, characterData: true });
    } catch {
      // nodes that cannot be observed are ignored
    }
  };
  observe(document);
  // Popups are not opened: their URL is kept as a link of this page instead.
  window.open = function open(url?: string | URL): null {
    try {
      if (url !== undefined && String(url) !== '' && state.opened.length < 100) state.opened.push(new URL(String(url), document.baseURI).href);
    } catch {
      // an unparsable URL opens nothing
    }
    return null;
  };
  // History traversals that would leave the document do nothing (see the function's comment).
  // The Navigation API tells whether the target entry is this document's (`sameDocument`); an
  // entry it does not list (another origin, or before the list) is another document too.
  const nav = (window as unknown as { navigation?: { currentEntry: { index: number } | null; entries(): { sameDocument: boolean }[] } }).navigation;
  const staysInDocument = (delta: number): boolean => {
    try {
      const at = nav?.currentEntry?.index ?? -1;
      const target = at < 0 ? undefined : nav!.entries()[at + delta];
      return target !== undefined && target.sameDocument;
    } catch {
      return false;
    }
  };
  // A traversal within the document runs in a later task, which fires `popstate` (where an app
  // renders the entry it went back to), and a fragment navigation (`location.hash = …`, a click
  // on `#…`) fires `hashchange` in a later task: until then each is work the page has scheduled
  // (the schedule watch's `pending`, which the settle rule counts), at most TRAVERSAL_WAIT_MS.
  const TRAVERSAL_WAIT_MS = 1_000;
  const awaitEvent = (type: 'popstate' | 'hashchange'): void => {
    const watch = state as unknown as { pending?: Set<object>; setTimer?: (f: () => void, ms: number) => unknown };
    const pending = watch.pending;
    if (!pending || !watch.setTimer) return;
    const entry = { kind: type };
    pending.add(entry);
    const end = (): void => void pending.delete(entry);
    window.addEventListener(type, end, { once: true, capture: true });
    watch.setTimer(end, TRAVERSAL_WAIT_MS);
  };
  const traversing = (): void => awaitEvent('popstate');
  // The Navigation API's `navigate` comes synchronously with a fragment navigation (a traversal's
  // comes in its own later task, just before its popstate: the history methods count those).
  try {
    (nav as unknown as EventTarget | undefined)?.addEventListener('navigate', (e) => {
      const n = e as Event & { hashChange?: boolean; navigationType?: string };
      if (n.hashChange === true && n.navigationType !== 'traverse') awaitEvent('hashchange');
    });
  } catch {
    // no Navigation API: fragment navigations are not counted
  }
  const hist = History.prototype;
  const { back, forward, go } = hist;
  hist.back = function (this: History): void {
    if (!staysInDocument(-1)) return;
    traversing();
    back.call(this);
  };
  hist.forward = function (this: History): void {
    if (!staysInDocument(1)) return;
    traversing();
    forward.call(this);
  };
  hist.go = function (this: History, delta?: number): void {
    const n = Math.trunc(Number(delta) || 0);
    if (n === 0) return go.call(this, delta);
    if (!staysInDocument(n)) return;
    traversing();
    go.call(this, delta);
  };
  const original = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function attachShadow(this: Element, init: ShadowRootInit): ShadowRoot {
    const root = original.call(this, init);
    // A closed root is out of the page's reach (`el.shadowRoot` is null) but not of a person's:
    // kept so that extractPage reads its links too.
    if (init?.mode === 'closed') state.closedRoots.set(this, root);
    hosts.add(this);
    observe(root);
    state.last = performance.now();
    return root;
  };
}

/**
 * When the links or the title of the page last changed (see {@link ClockState.linkChange}), in
 * ms since the epoch (`performance.timeOrigin` based, comparable with `Date.now()`): the latest of
 * the page's own clock and the clocks of the frames of its origin (their links are the page's
 * too). `null` when no clock is installed.
 */
export function lastLinkChangeAt(): number | null {
  let latest: number | null = null;
  const visit = (win: Window, depth: number): void => {
    try {
      const s = (win as unknown as { __spacrawl?: { linkChange?: number } }).__spacrawl;
      if (s && typeof s.linkChange === 'number') {
        const at = win.performance.timeOrigin + s.linkChange;
        if (latest === null || at > latest) latest = at;
      }
      if (depth < 5) for (let i = 0; i < win.frames.length && i < 100; i++) visit(win.frames[i] as Window, depth + 1);
    } catch {
      // a frame of another origin: not read
    }
  };
  visit(window, 0);
  return latest;
}
