/**
 * In-page code for click discovery: the scan for clickables and the click (the hooks the page
 * gets and the loop's small reads are in `click-hooks.ts`). Each function is serialized by
 * Playwright and must not close over anything outside its own body. Over 400 lines for that
 * reason: the scan (`scanClickables`, ~430 lines alone) carries its own helpers inside it (what is
 * clickable, hovered or chosen, delegated handlers, names, landmarks, templates), and cannot
 * share them with the other functions here.
 * @module
 */
import type { NativeConstructors } from './native-scripts.js';

/** A clickable element found in the page, described so it can be found again and deduplicated. */
export interface ClickCandidate {
  /** Index into `window.__spacrawlClickables` (valid until the next scan). */
  index: number;
  /** Stable signature: role or tag, accessible name, nearest landmark. */
  signature: string;
  /**
   * Its template: what controls made by one piece of a site's code share, whatever they are
   * named (role or tag, nearest landmark, the parent's tag, the class names without digits, and
   * whether it has `aria-expanded`). Every "Show example" toggle of an API reference shares
   * one, each with its own name.
   */
  template: string;
  /** Accessible name (trimmed, at most 100 characters). */
  name: string;
  /** Its role, or its tag name when it has none (`button`, `tab`, `div` …). */
  kind: string;
  /**
   * `true` when the element says it is switched on: `aria-selected`, `aria-expanded`,
   * `aria-pressed` or `aria-checked` is `"true"`, or it is the `<summary>` of an open `<details>`.
   * Clicking such a control again does not reveal more (a tab) or hides what it revealed.
   */
  on: boolean;
  /**
   * The signature under which this very element was clicked earlier in this document, when its
   * signature has changed since (a toggle whose label flips: "Expand" becomes "Collapse", "Show
   * more" becomes "Show less"); absent otherwise. It is that control in its other state, not a
   * control the click revealed.
   */
  clickedAs?: string;
  /**
   * How a person works it, when not by a click: `hover` (the mouse moved onto it: a menu that
   * opens on hover, announced by `aria-haspopup`, also on a link, which is never clicked), or
   * `choose` (an `<option>` of a jump menu or filter: chosen in its `<select>`, which tells the
   * page with `input` and `change` events). Absent: clicked.
   */
  action?: 'hover' | 'choose';
}


/**
 * Find click candidates: visible elements that are not links (anchors without a destination of
 * their own, such as `<a onclick>` or `<a href="#">`, count as buttons) and not form submits, and that
 * look clickable: an explicit role (`button`, `link`, `tab`, `treeitem`, `menuitem`),
 * `aria-expanded="false"`, `<summary>`, an `onclick` handler (attribute or property) or a `click`
 * listener of its own (see `installClickListenerWatch` in `click-hooks.ts`), a `data-href` (a table row or card
 * whose click an ancestor's listener handles), a handler jQuery delegates to it from an ancestor
 * (by a selector), a selector an ancestor's press listener tests the target with in its code
 * (`e.target.closest('.card')`), or an attribute a page-wide dispatcher reads (`jsaction`,
 * `data-ember-action`, `phx-click`, `on:click`), a press handler React or Solid keeps on the element
 * (`onClick` in its `__reactProps$…`, `$$click`, Svelte 5's `__click`, Blazor's `_blazorEvents_<n>`), or a `cursor: pointer` that the
 * element sets itself (not one inherited from a clickable ancestor); a checkbox or radio button
 * with a change or click handler of its own (`onchange`, `onclick`, `oninput`). Also what a person
 * works otherwise (see `ClickCandidate.action`): a menu trigger (`aria-haspopup`), links included,
 * is hovered, and so is an element with a hover handler of its own and no click handler; the options of a `<select>` with a handler of its own or whose values are URLs (a
 * jump menu) are chosen, at most 20 of each (a country list is not worth 200 looks). The container of a composite widget (`tablist`, `menu`, `listbox` …)
 * that holds its items is not a clickable: its items are. Open shadow roots are
 * searched too. Elements whose accessible name matches `excludePattern` (destructive or
 * session-ending actions) are never returned, nor disabled ones (`disabled`, or
 * `aria-disabled="true"` / `inert` on the element or an ancestor). Stores the elements on
 * `window.__spacrawlClickables` for {@link clickCandidate}.
 * @param excludePattern - regex source, matched case-insensitively against the accessible name
 */
export function scanClickables(excludePattern: string): ClickCandidate[] {
  const exclude = new RegExp(excludePattern, 'i');
  const w = window as unknown as {
    __spacrawlClickables?: Element[];
    __spacrawlClickableSigs?: string[];
    __spacrawlClickableActions?: (string | undefined)[];
    __spacrawlClicked?: WeakMap<Element, string>;
  };
  const clicked = w.__spacrawlClicked;
  const listened = (window as unknown as { __spacrawlClickListeners?: WeakSet<EventTarget> }).__spacrawlClickListeners;
  const hoverListened = (window as unknown as { __spacrawlHoverListeners?: WeakSet<EventTarget> }).__spacrawlHoverListeners;
  const changeListened = (window as unknown as { __spacrawlChangeListeners?: WeakSet<EventTarget> }).__spacrawlChangeListeners;
  // What a press (see `clickCandidate`) reaches, and what a hover does, in React's prop names and Solid's.
  const PRESS_PROPS = ['onClick', 'onMouseDown', 'onPointerDown', 'onMouseUp', 'onPointerUp'];
  // Solid's (`$$click`) and Svelte 5's (`__click`: a function, or a function and its arguments).
  const PRESS_KEYS = ['$$click', '$$mousedown', '$$pointerdown', '$$mouseup', '$$pointerup', '__click', '__mousedown', '__pointerdown', '__mouseup', '__pointerup'];
  const HOVER_KEYS = ['__mouseover', '__pointerover'];
  const CHANGE_PROPS = ['onChange', 'onInput'];
  const CHANGE_KEYS = ['$$input', '__change', '__input'];
  const HOVER_PROPS = ['onMouseEnter', 'onMouseOver', 'onPointerEnter', 'onPointerOver'];
  const sigs: string[] = [];
  const actions: (string | undefined)[] = [];
  const ROLES = new Set(['button', 'link', 'tab', 'treeitem', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option']);
  // WAI-ARIA 1.2's composite widgets (§5.3.2): the container of items that are the controls. Its
  // own handler (keyboard moves, pointer tracking, typeahead) serves them, and a press on it lands
  // on whichever item is at its centre; the items are clicked on their own.
  const COMPOSITE = new Set(['tablist', 'menu', 'menubar', 'listbox', 'radiogroup', 'tree', 'treegrid', 'grid', 'toolbar']);
  const ITEMS = 'button, a[href], [role="tab"], [role="menuitem"], [role="menuitemcheckbox"], [role="menuitemradio"], [role="option"], [role="radio"], [role="treeitem"], [role="row"], [role="gridcell"]';
  const found: Element[] = [];
  const out: ClickCandidate[] = [];
  const nameOf = (el: Element): string => {
    const label = el.getAttribute('aria-label') || el.getAttribute('title') || (el as HTMLElement).innerText || el.textContent || '';
    return label.replace(/\s+/g, ' ').trim().slice(0, 100);
  };
  const landmarkOf = (el: Element): string => {
    for (let p: Element | null = el.parentElement; p; p = p.parentElement) {
      const role = p.getAttribute('role');
      const tag = p.localName;
      if (['nav', 'header', 'footer', 'aside', 'main', 'form', 'dialog'].includes(tag)) return `${tag}${p.id ? `#${p.id}` : ''}`;
      if (role && ['navigation', 'banner', 'contentinfo', 'complementary', 'main', 'region', 'tree', 'tablist', 'menu', 'menubar', 'dialog'].includes(role)) {
        return `${role}${p.getAttribute('aria-label') ? `(${p.getAttribute('aria-label')})` : ''}`;
      }
    }
    return 'body';
  };
  const visible = (el: Element, cs: CSSStyleDeclaration): boolean => {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    return cs.visibility !== 'hidden' && cs.display !== 'none' && Number(cs.opacity) > 0;
  };
  const isSubmit = (el: Element): boolean => {
    const tag = el.localName;
    if (tag === 'input') return ['submit', 'image', 'reset'].includes((el as HTMLInputElement).type);
    if (tag === 'button') return (el as HTMLButtonElement).type === 'submit' && (el as HTMLButtonElement).form !== null;
    return false;
  };
  // An anchor with a destination of its own (another document, this document by its URL, as a
  // navigation's "you are here" link, a hash route, an in-page target) is read as a link and never
  // clicked. One without (no href, `href="#"`, `href=""` with an `onclick`, a fragment naming no
  // element) is a button in disguise: its click handler is the only way on. So is one whose href
  // is a `javascript:` URL (`javascript:void(0)`) when a handler of its own answers its click; the
  // URL's code itself is never run (`clickCandidate`), and without a handler it is not clicked.
  const here = location.href.split('#')[0];
  const scriptUrl = (el: Element): boolean => /^\s*javascript:/i.test(el.getAttribute('href') ?? '');
  const hasDestination = (el: Element): boolean => {
    const raw = el.getAttribute('href');
    if (raw === null) return false;
    const written = raw.trim();
    let u: URL;
    try {
      u = new URL(raw, document.baseURI);
    } catch {
      return false;
    }
    if (u.protocol === 'javascript:') return false;
    if (u.href.split('#')[0] !== here) return true;
    // This document, named by a path or URL of its own, or by `href=""` without an inline click
    // handler (TypeDoc's links to the page itself): reloading the page is where it leads.
    if (written === '') return !el.hasAttribute('onclick');
    if (!written.startsWith('#') && u.hash === '') return true;
    let fragment = u.hash.slice(1);
    try {
      fragment = decodeURIComponent(fragment);
    } catch {
      // a malformed escape is looked up as written
    }
    if (fragment.startsWith('/') || fragment.startsWith('!')) return true;
    return fragment !== '' && (document.getElementById(fragment) !== null || document.getElementsByName(fragment).length > 0);
  };
  /**
   * Handlers a library keeps on an ancestor for descendants it names by a selector, where no
   * listener, property or prop of the element shows them: jQuery's delegated handlers
   * (`$(document).on('click', '.row', fn)`, Bootstrap 3-4's data API), read from jQuery's own
   * data (`jQuery._data(node, 'events')`: each handler's `selector`; `jQuery.hasData` first, which
   * creates nothing), for every jQuery on the page (`jQuery`, `$`). A selector that matches the
   * `<body>` (`*`, `:not(a)`) names no control and is left out. The walk keeps the delegations of
   * the element's ancestors (and the document's) on a stack.
   */
  interface Delegation {
    selector: string;
    hover: boolean;
    jq?: JQueryLike;
  }
  interface JQueryLike {
    fn?: { jquery?: unknown };
    hasData?: (node: Node) => boolean;
    _data?: (node: Node, name: string) => unknown;
    find?: { matchesSelector?: (el: Element, selector: string) => boolean };
  }
  const jqs = [...new Set([(window as unknown as { jQuery?: unknown }).jQuery, (window as unknown as { $?: unknown }).$])].filter(
    (j): j is JQueryLike => typeof j === 'function' && typeof (j as JQueryLike).fn?.jquery === 'string' && typeof (j as JQueryLike).hasData === 'function' && typeof (j as JQueryLike)._data === 'function',
  );
  const DELEGATED_PRESS = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup'];
  // jQuery delegates `mouseenter` as `mouseover` (its `origType` says mouseenter).
  const DELEGATED_HOVER = ['mouseover', 'pointerover'];
  const selects = (el: Element, d: Delegation): boolean => {
    try {
      return el.matches(d.selector);
    } catch {
      // jQuery's own selector extensions (`:visible`, `:eq(0)`) are not the browser's.
      try {
        return d.jq?.find?.matchesSelector?.(el, d.selector) === true;
      } catch {
        return false;
      }
    }
  };
  const delegationsOf = (node: Node): Delegation[] => {
    const out: Delegation[] = [];
    for (const jq of jqs) {
      try {
        if (!jq.hasData!(node)) continue;
        const events = jq._data!(node, 'events') as Record<string, unknown> | undefined;
        if (!events || typeof events !== 'object') continue;
        for (const type of [...DELEGATED_PRESS, ...DELEGATED_HOVER]) {
          const list = events[type];
          if (!Array.isArray(list)) continue;
          for (const h of list as { selector?: unknown }[]) {
            if (typeof h?.selector !== 'string' || h.selector === '') continue;
            const d = { selector: h.selector, hover: DELEGATED_HOVER.includes(type), jq };
            if (!document.body || !selects(document.body, d)) out.push(d);
          }
        }
      } catch {
        // a page's jQuery that is not what it says: no delegations read from it
      }
    }
    return out;
  };
  /**
   * `true` when every press handler jQuery keeps on the element is delegated (has a selector):
   * the listener jQuery added to it dispatches its descendants' clicks, it is no control itself.
   */
  const delegatesOnly = (el: Element): boolean =>
    jqs.some((jq) => {
      try {
        if (!jq.hasData!(el)) return false;
        const events = jq._data!(el, 'events') as Record<string, unknown> | undefined;
        const handlers = DELEGATED_PRESS.flatMap((t) => (Array.isArray(events?.[t]) ? (events![t] as { selector?: unknown }[]) : []));
        return handlers.length > 0 && handlers.every((h) => typeof h?.selector === 'string' && h.selector !== '');
      } catch {
        return false;
      }
    });
  /**
   * Delegation written by hand: a press listener on an ancestor (the document, the window, a
   * list) whose code tests the target with a selector written in it (`e.target.closest('.card')`,
   * `.matches('[data-open]')`, or a class: `classList.contains('more')`): those selectors (see `installClickListenerWatch` in `click-hooks.ts`), each read once
   * per listener. One that matches the `<body>`, or no element, names no control; nor does a
   * bare tag name (`li`, `div`) tested by a page-wide listener (the window's, the document's, the body's): every such
   * element of the page would be clicked for it (a list's own listener testing `li` names its
   * items). `[]` without such listeners.
   */
  const pressListeners = (window as unknown as { __spacrawlPressListeners?: WeakMap<EventTarget, unknown[]> }).__spacrawlPressListeners;
  const selectorsOf = new Map<unknown, string[]>();
  const SELECTOR_CALL = /\.(?:closest|matches|webkitMatchesSelector)\(\s*(['"`])((?:(?!\1)[^\\]|\\.)+)\1\s*\)/g;
  // `classList.contains('more')`: the class as a selector.
  const CLASS_TEST = /\.classList\.contains\(\s*(['"`])([\w-]+)\1\s*\)/g;
  const writtenSelectors = (listener: unknown): string[] => {
    let out = selectorsOf.get(listener);
    if (out) return out;
    out = [];
    const fn = typeof listener === 'function' ? listener : (listener as { handleEvent?: unknown } | null)?.handleEvent;
    let source = '';
    try {
      source = typeof fn === 'function' ? Function.prototype.toString.call(fn) : '';
    } catch {
      // a proxy or a revoked function: nothing to read
    }
    const written = [...[...source.matchAll(SELECTOR_CALL)].map((m) => m[2]!.replace(/\\(.)/g, '$1')), ...[...source.matchAll(CLASS_TEST)].map((m) => `.${m[2]!}`)];
    for (const selector of written) {
      try {
        if (document.querySelector(selector) !== null && !document.body?.matches(selector)) out.push(selector);
      } catch {
        // not a selector (a string the code tests otherwise)
      }
    }
    selectorsOf.set(listener, out);
    return out;
  };
  const writtenDelegationsOf = (target: EventTarget): Delegation[] => {
    const listeners = pressListeners?.get(target);
    if (!listeners) return [];
    const pageWide = target === document || target === window || target === document.body || target === document.documentElement;
    return listeners
      .flatMap((l) => writtenSelectors(l))
      .filter((selector) => !pageWide || /[.#[]/.test(selector))
      .map((selector) => ({ selector, hover: false }));
  };
  const delegations: Delegation[] = [...(jqs.length > 0 ? delegationsOf(document) : []), ...writtenDelegationsOf(document), ...writtenDelegationsOf(window)];
  /** A delegated handler (see {@link delegationsOf}) of an ancestor names the element: for a press, or for the hover. */
  const delegated = (el: Element, hover: boolean): boolean => delegations.some((d) => d.hover === hover && selects(el, d));
  /**
   * A handler a page-wide dispatcher finds by an attribute of the element: Google's jsaction
   * (`jsaction="click:ns.fn"`, or a bare `ns.fn`, a click; Angular's event replay writes it too),
   * Ember's `{{action}}` (`data-ember-action`), Phoenix LiveView's `phx-click` and Qwik's
   * `on:click` (the handler's chunk, loaded by the document's one listener on the first click).
   */
  const markedForClick = (el: Element): boolean => {
    if (el.hasAttribute('data-ember-action') || el.hasAttribute('phx-click') || el.hasAttribute('on:click')) return true;
    const js = el.getAttribute('jsaction');
    return js !== null && js.split(';').some((a) => a.trim() !== '' && (!a.includes(':') || DELEGATED_PRESS.includes(a.slice(0, a.indexOf(':')).trim())));
  };
  // Depth first in document order (an open shadow root before its host), each element's cursor
  // handed to its children: one computed style per element. An anchor with a destination is
  // read as a link, and what is inside it leads where it leads: its subtree is not searched
  // (on a documentation site most elements are inside links: a third of the walk's cost). Nor is
  // an element that is not rendered (`display: none`): nothing inside it, its shadow root's
  // content included, is rendered or can be clicked by a person (on a TypeDoc class page 1279 of
  // the 1408 elements the walk reached: ~10 ms of ~11 a page, idle).
  const visit = (el: Element, parentCursor: string): void => {
    const tag = el.localName;
    // An SVG's shapes are never clicked (an icon's click is its button's); HTML in a
    // <foreignObject> is searched, with the cursor from above the drawing.
    const svg = el instanceof SVGElement;
    const link = (tag === 'a' || tag === 'area') && hasDestination(el);
    const cs = svg || link ? null : getComputedStyle(el);
    if (cs?.display === 'none') return;
    const sr = (el as HTMLElement).shadowRoot;
    if (sr) walkChildren(sr, '');
    if (link) {
      // A link that opens a menu on hover: hovered, never clicked (it leads where it leads).
      if (popup(el)) {
        const lcs = getComputedStyle(el);
        if (visible(el, lcs)) add(el, tag, nameOf(el), false, 'hover');
      }
      return;
    }
    if (svg || !cs) return walkChildren(el, parentCursor);
    const cursor = cs.cursor;
    walkSelf(el, tag, cs, cursor === 'pointer' && parentCursor !== 'pointer');
    // jQuery runs a delegated handler for the container's descendants only.
    const own = [...(jqs.length > 0 ? delegationsOf(el) : []), ...writtenDelegationsOf(el)];
    delegations.push(...own);
    walkChildren(el, cursor);
    delegations.length -= own.length;
  };
  const walkChildren = (root: Element | ShadowRoot, cursor: string): void => {
    for (let c = root.firstElementChild; c; c = c.nextElementSibling) visit(c, cursor);
  };
  const popup = (el: Element): boolean => {
    const v = el.getAttribute('aria-haspopup');
    return v !== null && v !== 'false';
  };
  const disabled = (el: Element): boolean =>
    (el as HTMLButtonElement).disabled || el.hasAttribute('disabled') || el.closest('[aria-disabled="true"], [inert]') !== null;
  /** A handler the page set on the element itself (attribute or property). */
  const handles = (el: Element, ...events: string[]): boolean => events.some((e) => (el as unknown as Record<string, unknown>)[`on${e}`] != null);
  /** A form control's name: its `aria-label`, else its label's own text (not the control's: a select's options), its title, name or id. */
  const labelOf = (el: HTMLInputElement | HTMLSelectElement): string => {
    const label = el.labels?.[0];
    const own = label ? [...label.childNodes].filter((n) => !n.contains(el)).map((n) => n.textContent ?? '').join(' ') : '';
    return (el.getAttribute('aria-label') || own.trim() || el.getAttribute('title') || el.getAttribute('name') || el.id || '').replace(/\s+/g, ' ').trim().slice(0, 100);
  };
  const URLISH = /^(https?:\/\/|\/|\.\.?\/|\?|#!?\/)/i;
  /**
   * A `click` listener a script added to the element, which is a control of its own: not a
   * container of links or controls (a nav, an app's root: their listener handles their
   * descendants' clicks, or only reports them).
   */
  const ownListener = (el: Element, tag: string): boolean => {
    if (tag === 'body' || tag === 'html') return false;
    const own = listened?.has(el) ?? false;
    const k = kept(el);
    if ((!own && !k.press) || k.root) return false;
    // jQuery's listener for the handlers it delegates from here (see `delegationsOf`). A listener
    // written by hand that tests its target (see `writtenDelegationsOf`) may also act for the
    // element itself (a card that opens, unless its "favourite" button was hit): still a control.
    if (own && !k.press && jqs.length > 0 && delegatesOnly(el)) return false;
    // A framework's prop is the element's own handler, not one its descendants' clicks bubble
    // to for dispatch: a product card that navigates is a control though it holds a "wishlist"
    // button; one that holds a link leads where that link leads.
    return el.querySelector(own ? 'a[href], area[href], button, input, select, textarea, [role="button"], [role="link"]' : 'a[href], area[href]') === null;
  };
  /**
   * The handlers a framework keeps on the element itself while a single listener at the app's
   * root dispatches the events (so the element never gets a listener of its own): React 17+
   * keeps the element's props under `__reactProps$<id>` (React 16: `__reactEventHandlers$<id>`),
   * `onClick` among them, and marks its root container `__reactContainer$<id>`; Solid keeps
   * `$$click`, Svelte 5 `__click` (and `__mouseover`), Blazor its handlers by event name under
   * `_blazorEvents_<n>` (`.handlers.click`). All are own enumerable properties: one `Object.keys`
   * per element, remembered for the scan, and an element outside such an app has none.
   */
  const NONE = { press: false, hover: false, change: false, root: false };
  let keptOf: Element | null = null;
  let keptIs = NONE;
  const kept = (el: Element): typeof NONE => {
    if (el === keptOf) return keptIs;
    keptOf = el;
    keptIs = NONE;
    const keys = Object.keys(el);
    if (keys.length === 0) return keptIs;
    const o = el as unknown as Record<string, unknown>;
    const has = (p: Record<string, unknown>, names: readonly string[]): boolean => names.some((n) => typeof p[n] === 'function');
    const out = { press: false, hover: false, change: false, root: false };
    for (const k of keys) {
      if (PRESS_KEYS.includes(k) && o[k] != null) out.press = true;
      else if (HOVER_KEYS.includes(k) && o[k] != null) out.hover = true;
      else if (CHANGE_KEYS.includes(k) && o[k] != null) out.change = true;
      else if (k.startsWith('__reactContainer$') || k === '_reactRootContainer') out.root = true;
      else if (k.startsWith('_blazorEvents_')) {
        // Blazor's handlers by DOM event name (`@onclick` → `click`), dispatched from the document.
        const h = (o[k] as { handlers?: Record<string, unknown> } | null)?.handlers;
        if (h && typeof h === 'object') {
          const on = (names: readonly string[]): boolean => names.some((n) => h[n] != null);
          out.press ||= on(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup']);
          out.hover ||= on(['mouseover', 'mouseenter', 'pointerover', 'pointerenter']);
          out.change ||= on(['change', 'input']);
        }
      }
      else if (k.startsWith('__reactProps$') || k.startsWith('__reactEventHandlers$')) {
        const p = o[k];
        if (p && typeof p === 'object') {
          out.press ||= has(p as Record<string, unknown>, PRESS_PROPS);
          out.hover ||= has(p as Record<string, unknown>, HOVER_PROPS);
          out.change ||= has(p as Record<string, unknown>, CHANGE_PROPS);
        }
      }
    }
    keptIs = out;
    return out;
  };
  /**
   * A form control whose own handler answers a change (`onchange`/`oninput`, a `change` or `input`
   * listener: Vue's `@change`, Svelte 4's `on:change`; React's `onChange`, Svelte 5's `__change`,
   * Solid's `$$input`): choosing or checking it tells the page something.
   */
  const answersChange = (el: Element): boolean => handles(el, 'change', 'input') || (changeListened?.has(el) ?? false) || kept(el).change;
  /**
   * A hover handler of the element's own (a listener, an `onmouseenter`/`onmouseover` property,
   * React's `onMouseEnter`), on an element that is not the page (`body`, `html`) nor an app's root,
   * and holds no announced menu trigger (`aria-haspopup`): that trigger is hovered, and the
   * hover reaches this element too (`mouseenter` goes to every ancestor).
   */
  const ownHover = (el: Element, tag: string): boolean =>
    tag !== 'body' &&
    tag !== 'html' &&
    ((hoverListened?.has(el) ?? false) || handles(el, 'mouseenter', 'mouseover') || kept(el).hover || (delegations.length > 0 && delegated(el, true))) &&
    !kept(el).root &&
    el.querySelector('[aria-haspopup]:not([aria-haspopup="false"])') === null;
  const add = (el: Element, kind: string, name: string, on: boolean, action?: string, sigName = name): void => {
    if (name && exclude.test(name)) return;
    const landmark = landmarkOf(el);
    const sig = `${action === 'hover' ? 'hover:' : ''}${kind}|${sigName}|${landmark}`;
    const classes = [...el.classList].map((c) => c.replace(/[0-9]+/g, '')).filter(Boolean).sort().join('.');
    const template = `${action === 'hover' ? 'hover:' : ''}${kind}|${landmark}|${el.parentElement?.localName ?? ''}|${classes}|${el.hasAttribute('aria-expanded') ? 'x' : ''}`;
    const was = clicked?.get(el);
    out.push({ index: found.length, signature: sig, template, name, kind, on, ...(was !== undefined && was !== sig ? { clickedAs: was } : {}), ...(action ? { action: action as 'hover' | 'choose' } : {}) });
    found.push(el);
    sigs.push(sig);
    actions.push(action);
  };
  const walkSelf = (el: Element, tag: string, cs: CSSStyleDeclaration, pointer: boolean): void => {
    if (tag === 'select') {
      // A jump menu or a filter: each option chosen once (the selected one too: choosing it tells
      // the page nothing new only when it has no handler, and a jump menu's first entry is a page).
      const sel = el as HTMLSelectElement;
      if (sel.multiple || disabled(sel) || !visible(sel, cs)) return;
      const opts = [...sel.options].filter((o) => !o.disabled && o.value !== '');
      if (!answersChange(sel) && !opts.some((o) => URLISH.test(o.value.trim()))) return;
      const label = labelOf(sel);
      for (const o of opts.slice(0, 20)) {
        const text = (o.label || o.text).replace(/\s+/g, ' ').trim().slice(0, 100);
        add(o, 'option', text, false, 'choose', `${label}: ${text}`);
      }
      return;
    }
    // A `javascript:` anchor is a control only through a handler of its own (see `hasDestination`).
    if ((tag === 'a' || tag === 'area') && scriptUrl(el) && !handles(el, 'click', 'mousedown', 'pointerdown', 'mouseup', 'pointerup') && !ownListener(el, tag) && !(delegations.length > 0 && delegated(el, false))) return;
    const toggle = tag === 'input' && ['checkbox', 'radio'].includes((el as HTMLInputElement).type) && (handles(el, 'click') || answersChange(el) || (listened?.has(el) ?? false) || kept(el).press);
    if (!toggle && (tag === 'option' || tag === 'textarea' || (tag === 'input' && !isSubmit(el)))) return;
    const role = el.getAttribute('role');
    if (role !== null && COMPOSITE.has(role) && el.querySelector(ITEMS) !== null) return;
    const explicit =
      toggle ||
      (role !== null && ROLES.has(role)) ||
      el.getAttribute('aria-expanded') === 'false' ||
      tag === 'summary' ||
      handles(el, 'click') ||
      tag === 'button' ||
      ownListener(el, tag) ||
      // A row or card that names where its click goes, for a handler on an ancestor (delegation).
      el.hasAttribute('data-href') ||
      markedForClick(el) ||
      // Named by an ancestor's delegated handler; one holding a link leads where that link leads.
      (delegations.length > 0 && tag !== 'form' && delegated(el, false) && el.querySelector('a[href], area[href]') === null);
    // A menu trigger no click reaches (no role, no pointer), or an element whose own handler
    // answers the hover and none its click (a hover card, a menu that opens on mouseenter, with
    // or without a pointer): hovered.
    const hover = !explicit && ((!pointer && popup(el)) || ownHover(el, tag));
    if (!explicit && !pointer && !hover) return;
    if (isSubmit(el) || !visible(el, cs) || disabled(el)) return;
    const on =
      ['aria-selected', 'aria-expanded', 'aria-pressed', 'aria-checked'].some((a) => el.getAttribute(a) === 'true') ||
      (tag === 'summary' && el.parentElement?.localName === 'details' && (el.parentElement as HTMLDetailsElement).open) ||
      (toggle && (el as HTMLInputElement).checked);
    add(el, role ?? tag, toggle ? labelOf(el as HTMLInputElement) : nameOf(el), on, hover ? 'hover' : undefined);
  };
  const walk = (root: Document): void => {
    if (root.documentElement) visit(root.documentElement, '');
  };
  walk(document);
  w.__spacrawlClickables = found;
  w.__spacrawlClickableSigs = sigs;
  w.__spacrawlClickableActions = actions;
  return out;
}

/**
 * Work candidate `index` of the last {@link scanClickables} as its `action` says (pressed and
 * clicked as a mouse does it: pointer and mouse down, focus, up, then `click()`; the mouse events
 * of a hover; or the option chosen in its `<select>`),
 * after scrolling it into view, remembering the element with the signature it had when first
 * clicked (see `ClickCandidate.clickedAs`). Returns `false` when the element is gone.
 */
export function clickCandidate(index: number): boolean {
  const w = window as unknown as {
    __spacrawlClickables?: Element[];
    __spacrawlClickableSigs?: string[];
    __spacrawlClickableActions?: (string | undefined)[];
    __spacrawlClicked?: WeakMap<Element, string>;
  };
  // The browser's own constructors, not what the page put in their place (see `native-scripts.ts`).
  const N = ((window as unknown as { __spacrawlNatives?: NativeConstructors }).__spacrawlNatives ?? window) as unknown as NativeConstructors;
  const el = (w.__spacrawlClickables ?? [])[index] as HTMLElement | undefined;
  if (!el || !el.isConnected) return false;
  const clicked = (w.__spacrawlClicked ??= new WeakMap());
  const sig = w.__spacrawlClickableSigs?.[index];
  if (sig !== undefined && !clicked.has(el)) clicked.set(el, sig);
  const action = w.__spacrawlClickableActions?.[index];
  if (action === 'choose') {
    const sel = el.closest('select');
    if (!sel) return false;
    sel.scrollIntoView({ block: 'center', inline: 'center' });
    sel.value = (el as HTMLOptionElement).value;
    sel.dispatchEvent(new N.Event('input', { bubbles: true, composed: true }));
    sel.dispatchEvent(new N.Event('change', { bubbles: true }));
    return true;
  }
  el.scrollIntoView({ block: 'center', inline: 'center' });
  if (action === 'hover') {
    // What a mouse moving onto it from outside the page sends: over and move on the element,
    // enter on it and on every ancestor (pointer events first).
    const r = el.getBoundingClientRect();
    const at = { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, view: window };
    const chain: Element[] = [];
    for (let p: Element | null = el; p; p = p.parentElement) chain.unshift(p);
    el.dispatchEvent(new N.PointerEvent('pointerover', { ...at, bubbles: true, cancelable: true, composed: true, pointerType: 'mouse', isPrimary: true }));
    for (const p of chain) p.dispatchEvent(new N.PointerEvent('pointerenter', { ...at, pointerType: 'mouse', isPrimary: true }));
    el.dispatchEvent(new N.MouseEvent('mouseover', { ...at, bubbles: true, cancelable: true, composed: true }));
    for (const p of chain) p.dispatchEvent(new N.MouseEvent('mouseenter', at));
    el.dispatchEvent(new N.PointerEvent('pointermove', { ...at, bubbles: true, cancelable: true, composed: true, pointerType: 'mouse', isPrimary: true }));
    el.dispatchEvent(new N.MouseEvent('mousemove', { ...at, bubbles: true, cancelable: true, composed: true }));
    return true;
  }
  // Pressed as a mouse presses it: pointerdown, mousedown and the focus it gives, pointerup,
  // mouseup, then the click. Some controls act on the press, not the click (a Radix menu
  // trigger opens on pointerdown; a row may navigate on mousedown), and a click alone never
  // reaches them. As in a browser, a cancelled pointerdown holds back the mouse events that follow
  // it, and a cancelled press gives no focus (the control keeps it off itself).
  const r = el.getBoundingClientRect();
  const at = { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, view: window, bubbles: true, cancelable: true, composed: true, button: 0 };
  const pointer = { ...at, pointerId: 1, pointerType: 'mouse', isPrimary: true };
  const down = el.dispatchEvent(new N.PointerEvent('pointerdown', { ...pointer, buttons: 1 }));
  const pressed = down && el.dispatchEvent(new N.MouseEvent('mousedown', { ...at, buttons: 1, detail: 1 }));
  if (pressed && el.isConnected) {
    // Focus goes to the control, or its nearest focusable ancestor (across shadow roots), or
    // nowhere (a blur): what a dropdown that closes on blur is told.
    let f: Element | null = el;
    while (f && !(f instanceof N.HTMLElement && f.tabIndex >= 0) && !(f instanceof N.HTMLElement && f.hasAttribute('tabindex'))) f = f.parentElement ?? ((f.getRootNode() as ShadowRoot).host ?? null);
    if (f instanceof N.HTMLElement) f.focus({ preventScroll: true });
    else (document.activeElement as HTMLElement | null)?.blur?.();
  }
  if (!el.isConnected) return true;
  el.dispatchEvent(new N.PointerEvent('pointerup', pointer));
  if (down) el.dispatchEvent(new N.MouseEvent('mouseup', { ...at, detail: 1 }));
  if (!el.isConnected) return true;
  // The `javascript:` URL of an anchor clicked for its handler is not run: its click's default
  // action is cancelled before the page's own listeners see the event (they still run).
  const anchor = el.closest('a[href], area[href]');
  if (anchor && /^\s*javascript:/i.test(anchor.getAttribute('href') ?? '')) {
    const cancel = (e: Event): void => e.preventDefault();
    window.addEventListener('click', cancel, true);
    try {
      el.click();
    } finally {
      window.removeEventListener('click', cancel, true);
    }
    return true;
  }
  el.click();
  return true;
}
