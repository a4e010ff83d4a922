/**
 * In-page code that reads the single-page-app signals of a settled page in one pass (see
 * `SpaSignals`). Serialized by Playwright: it must not close over anything outside its body.
 * @module
 */
import type { NativeConstructors } from './native-scripts.js';

/** What {@link readSpaSignals} returns. */
export interface SpaReading {
  /** Visible unrendered template text (see `SpaSignals.unrendered`). */
  unrendered: string[];
  /** Visible busy indicators (see `SpaSignals.busy`). */
  busy: string[];
  /** The app root that rendered nothing, else `null` (see `SpaSignals.emptyRoot`). */
  emptyRoot: string | null;
  /**
   * Characters of the page's text: every text node of the body and its open shadow roots outside
   * scripts, styles, templates and `<noscript>`, joined by spaces, whitespace collapsed (counted
   * the same way as the server's HTML, see `server-html.ts`).
   */
  textLength: number;
}

/**
 * Read the page's SPA signals:
 * - **unrendered**: visible text nodes (outside scripts, styles, templates, `<noscript>`, form
 *   fields, `<pre>`, `<code>`, `<kbd>`, `<samp>` and `contenteditable`) holding `{{ … }}`,
 *   `${…}` or `[object Something]`, or holding `undefined`, `NaN` or `null` where the line it
 *   is shown in (its nearest ancestor that is not laid out inline: a cell, a paragraph, a list
 *   item) has no other words (`$NaN`, `undefined undefined`, `null`) or ends in a label's value
 *   that is one of them (`Price: NaN`, `Total: $NaN`). A type in API documentation
 *   (`AddressFamily: 4 | 6 | undefined`, each word its own `<span>`) is a line with other words;
 * - **busy**: visible `aria-busy="true"` elements, `role="progressbar"` without `aria-valuenow`,
 *   `<progress>` without `value`, elements with a class naming a skeleton placeholder, and, when
 *   none of these shows, an app root that shows only a loading placeholder (`placeholder #root`;
 *   see {@link emptyRootOf});
 * - **emptyRoot**: the first known app mount point present (`#root`, `#app`, `#__next`, `#__nuxt`,
 *   `#___gatsby`, `#svelte`, `app-root`, `[data-reactroot]`, `[ng-version]`, `[data-v-app]`), or
 *   the body when there is none, when it holds no text, no link and no media (image, SVG,
 *   canvas, video, frame, object, form control);
 * - **textLength**: see {@link SpaReading.textLength}.
 *
 * Evaluate {@link SPA_SIGNALS_EXPRESSION}, which hands it {@link emptyRootOf} (an in-page
 * function cannot call another one of this module: each is sent as its own text).
 * @param emptyRootOf - {@link emptyRootOf}, as the expression hands it
 */
export function readSpaSignals(emptyRootOf: (placeholders?: boolean) => string | null): SpaReading {
  // The browser's own `Element`, not one a library put on the window (see `native-scripts.ts`).
  const Elem = ((window as unknown as { __spacrawlNatives?: NativeConstructors }).__spacrawlNatives ?? window).Element;
  const SKIP = new Set(['script', 'style', 'noscript', 'template']);
  const CODE = new Set(['textarea', 'pre', 'code', 'kbd', 'samp', 'input', 'select', 'option']);
  const TEMPLATE = /\{\{[^{}]{0,200}\}\}|\$\{[^{}]{0,200}\}|\[object [A-Z][A-Za-z]*\]/;
  const TOKEN = /\b(?:undefined|NaN|null)\b/;
  const TOKENS = new RegExp(TOKEN.source, 'g');
  const LABELLED = /:\s*[-+$€£¥]?\s*(?:undefined|NaN|null)\s*[.,;!?)]?$/;
  const unrendered: string[] = [];
  const parts: string[] = [];
  let chars = 0;
  const visible = (el: Element): boolean => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) return false;
    const check = (el as Element & { checkVisibility?: (o: object) => boolean }).checkVisibility;
    return check ? check.call(el, { checkOpacity: true, checkVisibilityCSS: true }) : true;
  };
  const inCode = (el: Element): boolean => {
    for (let p: Element | null = el; p; p = p.parentElement) {
      if (CODE.has(p.localName) || p.getAttribute('contenteditable') === 'true' || p.getAttribute('contenteditable') === '') return true;
    }
    return false;
  };
  /** `undefined`, `NaN` or `null` with no other word in `t`, or as the value of its label. */
  const tokenAlone = (t: string): boolean => TOKEN.test(t) && (!/\p{L}/u.test(t.replace(TOKENS, '')) || LABELLED.test(t));
  /** The text of the line `el` is shown in: its nearest ancestor (or itself) not laid out inline. */
  const lineOf = (el: Element): string => {
    let p: Element = el;
    while (p.parentElement && p !== document.body && getComputedStyle(p).display.startsWith('inline')) p = p.parentElement;
    const text = (p as HTMLElement).innerText ?? p.textContent ?? '';
    return text.slice(0, 2_000).replace(/\s+/g, ' ').trim();
  };
  // Text nodes only, and no filter callback: a TreeWalker that calls back into script for every
  // node cost 8-14 ms on a 2,400-element documentation page, against 0.5 ms without. A text node
  // of a script, style, template or <noscript> is that element's child (their content is raw
  // text, and a template's own content is not in the tree). Open shadow roots are read after
  // the tree that holds them (the joined length does not depend on the order).
  const walk = (root: Node): void => {
    const tw = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = tw.nextNode(); n; n = tw.nextNode()) {
      const parent = n.parentNode as Element | null;
      if (parent && SKIP.has(parent.localName)) continue;
      const data = (n as Text).data;
      if (chars < 1_000_000 && /\S/.test(data)) {
        parts.push(data);
        chars += data.length;
      }
      if (unrendered.length >= 10) continue;
      // Cheap tests first: most text holds no template marker and no token.
      if (!data.includes('{{') && !data.includes('${') && !data.includes('[object ') && !TOKEN.test(data)) continue;
      const t = data.replace(/\s+/g, ' ').trim();
      if (!t) continue;
      const template = TEMPLATE.test(t);
      if (!template && !tokenAlone(t)) continue;
      const el = n.parentElement;
      if (!el || inCode(el) || !visible(el)) continue;
      if (!template && !tokenAlone(lineOf(el))) continue;
      unrendered.push(t.length > 120 ? `${t.slice(0, 117)}…` : t);
    }
    const all = root instanceof Elem || root instanceof ShadowRoot ? root.querySelectorAll('*') : [];
    for (const el of Array.from(all)) if (el.shadowRoot) walk(el.shadowRoot);
  };
  if (document.body) walk(document.body);
  const describe = (el: Element): string => {
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/)[0] : '';
    return `${el.localName}${el.id ? `#${el.id}` : cls ? `.${cls}` : ''}`;
  };
  const busy: string[] = [];
  const seen = new Set<Element>();
  const kinds: [string, string][] = [
    ['aria-busy', '[aria-busy="true"]'],
    ['progressbar', '[role="progressbar"]:not([aria-valuenow]), progress:not([value])'],
    ['skeleton', '[class*="skeleton" i]'],
  ];
  for (const [kind, selector] of kinds) {
    for (const el of Array.from(document.querySelectorAll(selector))) {
      if (busy.length >= 5) break;
      if (seen.has(el) || !visible(el)) continue;
      seen.add(el);
      busy.push(`${kind} ${describe(el)}`);
    }
  }
  const emptyRoot = emptyRootOf();
  // An app root that shows only a loading placeholder ("Loading…") is a busy indicator too
  // (named only when no other one is: a skeleton beside a title is that skeleton).
  const placeholder = emptyRoot === null && busy.length === 0 ? emptyRootOf(true) : null;
  if (placeholder !== null) busy.push(`placeholder ${placeholder}`);
  return { unrendered, busy, emptyRoot, textLength: parts.join(' ').replace(/\s+/g, ' ').trim().length };
}

/**
 * The app root that rendered nothing, for `empty-render` and for the settle rule (a page that
 * shows nothing waits for its timers, see `SettleState.blank`): the first known app mount
 * point present (`#root`, `#app`, `#__next`, `#__nuxt`, `#___gatsby`, `#svelte`, `app-root`,
 * `[data-reactroot]`, `[ng-version]`, `[data-v-app]`) when it holds no text, no link and no media
 * (image, SVG, canvas, video, frame, object, form control), `'body'` when there is none and the
 * body holds none of them, else `null`. Text inside scripts, styles, templates and `<noscript>`
 * does not count; an open shadow root does. In-page code: self-contained.
 *
 * With `placeholders` (the settle rule's reading), a root that shows only a loading placeholder
 * counts as not rendered yet too: no link and no media but SVG (a spinner), and at most
 * {@link PLACEHOLDER_TEXT_MAX} characters of text that either say so ("Loading…", "Please
 * wait", any text ending in an ellipsis) or sit beside a busy indicator (`aria-busy="true"`, a
 * progress bar without a value, an element whose class names a spinner, loader or skeleton).
 * "Welcome" alone is a page that started. The `empty-render` rule does not use it: a
 * placeholder is not nothing.
 */
export function emptyRootOf(placeholders = false): string | null {
  // Same value as PLACEHOLDER_TEXT_MAX (in-page code cannot refer to module constants).
  const PLACEHOLDER_MAX = 80;
  const SKIP = new Set(['script', 'style', 'noscript', 'template']);
  const ROOTS = ['#root', '#app', '#__next', '#__nuxt', '#___gatsby', '#svelte', 'app-root', '[data-reactroot]', '[ng-version]', '[data-v-app]'];
  const CONTENT = 'a[href], img, canvas, video, picture, iframe, object, embed, input, select, textarea, button';
  const LOADING = /\b(?:loading|please wait)\b|(?:…|\.\.\.)$/i;
  const BUSY = '[aria-busy="true"], [role="progressbar"]:not([aria-valuenow]), progress:not([value]), [class*="spinner" i], [class*="loader" i], [class*="loading" i], [class*="skeleton" i]';
  /** The text `el` shows (whitespace collapsed, up to a few hundred characters), or `null` when it holds content or a shadow root. */
  const textOf = (el: Element): string | null => {
    if (el.querySelector(CONTENT)) return null;
    const tw = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => (n.nodeType === 1 && SKIP.has((n as Element).localName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    let text = '';
    for (let n = tw.nextNode(); n && text.length <= 4 * PLACEHOLDER_MAX; n = tw.nextNode()) {
      if (n.nodeType === 3) text += ` ${(n as Text).data}`;
      else if ((n as Element).shadowRoot) return null;
    }
    return text.replace(/\s+/g, ' ').trim();
  };
  const notRendered = (el: Element): boolean => {
    const text = textOf(el);
    if (text === null) return false;
    if (!placeholders) return text === '' && !el.querySelector('svg');
    return text === '' || (text.length <= PLACEHOLDER_MAX && (LOADING.test(text) || el.querySelector(BUSY) !== null));
  };
  for (const sel of ROOTS) {
    const root = document.querySelector(sel);
    if (root) return notRendered(root) ? sel : null;
  }
  return document.body && notRendered(document.body) ? 'body' : null;
}

/** Most characters of text a loading placeholder shows (see {@link emptyRootOf}). */
export const PLACEHOLDER_TEXT_MAX = 80;

/** {@link readSpaSignals} with {@link emptyRootOf}, as one expression to evaluate in a page. */
export const SPA_SIGNALS_EXPRESSION = `(${readSpaSignals.toString()})(${emptyRootOf.toString()})`;
