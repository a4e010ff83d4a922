/**
 * Closed shadow roots the page never attached by script: declarative ones
 * (`<template shadowrootmode="closed">`, HTML §13.2.6.4.4, "insert a declarative shadow root").
 * The HTML parser attaches them itself, so the `attachShadow` hook of `clock-scripts.ts`
 * never sees them and no script of the page can reach them (`el.shadowRoot` is `null` for a
 * closed root, DOM §4.2.2). A person sees and clicks their links all the same.
 *
 * The DevTools protocol can reach them: `DOM.getDocument` with `pierce` lists every shadow root,
 * closed ones included, in the page and its frames. That walk serializes the whole DOM, so it is
 * made only on a page whose HTML as the server sent it declares one ({@link declaresClosedRoot}).
 * Each closed root found is added to its window's `closedRoots` (the map the `attachShadow` hook
 * fills), so the page's link read (`extractPage`) and its frames' reads walk it like any other.
 * @module
 */
import type { CDPSession } from 'playwright';
import { withTimeout } from './timeout.js';

/** A node of `DOM.getDocument`, the fields read here. */
interface DomNode {
  children?: DomNode[];
  shadowRoots?: DomNode[];
  contentDocument?: DomNode;
  shadowRootType?: 'user-agent' | 'open' | 'closed';
  backendNodeId: number;
}

/**
 * Whether an HTML document declares a closed shadow root: a `shadowrootmode` attribute whose
 * value is `closed` (attribute names and this enumerated value are ASCII case-insensitive, HTML
 * §2.3.3), written plainly or escaped inside an attribute such as `srcdoc` (`&quot;closed&quot;`).
 * A false positive costs one DOM walk; a `null` body (none kept) declares nothing.
 * @param body - the document's bytes as the server sent them
 */
export function declaresClosedRoot(body: Buffer | null | undefined): boolean {
  if (!body || body.length === 0) return false;
  return /shadowrootmode\s*=\s*(?:["']|&quot;|&#0*3[49];)?\s*closed/i.test(body.toString('latin1'));
}

/**
 * Registers the page's closed shadow roots (in the page, its shadow roots and its frames) in
 * their window's `__spacrawl.closedRoots`, so later link reads walk them.
 * @param cdp - the tab's CDP session
 * @returns how many closed roots were newly registered (0 when none, or when the walk failed or
 *   took over 5 s). Never rejects.
 */
export async function registerClosedRoots(cdp: CDPSession): Promise<number> {
  try {
    return await withTimeout(register(cdp), 5_000, 'finding closed shadow roots');
  } catch {
    return 0;
  } finally {
    // getDocument enables the DOM agent, which then reports every change of the page.
    await cdp.send('DOM.disable').catch(() => undefined);
  }
}

async function register(cdp: CDPSession): Promise<number> {
  const { root } = (await cdp.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: DomNode };
  const closed: number[] = [];
  const walk = (n: DomNode): void => {
    for (const s of n.shadowRoots ?? []) {
      if (s.shadowRootType === 'closed') closed.push(s.backendNodeId);
      walk(s);
    }
    for (const c of n.children ?? []) walk(c);
    if (n.contentDocument) walk(n.contentDocument);
  };
  walk(root);
  let added = 0;
  for (const backendNodeId of closed) {
    const { object } = await cdp.send('DOM.resolveNode', { backendNodeId });
    if (!object.objectId) continue;
    const { result } = await cdp.send('Runtime.callFunctionOn', {
      objectId: object.objectId,
      functionDeclaration: ADD_TO_CLOSED_ROOTS,
      returnByValue: true,
    });
    if (result.value === true) added++;
    await cdp.send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => undefined);
  }
  return added;
}

/** Runs on a closed `ShadowRoot` (`this`): adds it to its window's `closedRoots`; `true` if it was not there. */
const ADD_TO_CLOSED_ROOTS = `function () {
  const view = this.host && this.host.ownerDocument && this.host.ownerDocument.defaultView;
  const roots = view && view.__spacrawl && view.__spacrawl.closedRoots;
  if (!roots || roots.has(this.host)) return false;
  roots.set(this.host, this);
  return true;
}`;
