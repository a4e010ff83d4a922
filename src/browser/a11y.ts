/**
 * The accessibility check (`--a11y`): axe-core, run through its maintained Playwright
 * integration (`@axe-core/playwright`'s `AxeBuilder`, which checks every frame, cross-origin
 * ones included), on the page as read and on each state a click revealed. spacrawl writes no
 * rule of its own: what is recorded is axe-core's rule ids, impacts, help and failing elements.
 * @module
 */
import type { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright';
import type { A11yAudit, A11yImpact, A11yViolation } from '../model/record.js';
import { withTimeout } from './timeout.js';

/** Default `--a11y-tags`: WCAG 2.0, 2.1 and 2.2, levels A and AA (axe-core's tag names). */
export const DEFAULT_A11Y_TAGS: readonly string[] = Object.freeze(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']);
/** Longest one axe-core run may take on the page as read (ms). */
export const A11Y_PAGE_TIMEOUT_MS = 30_000;
/** Most failing elements' selectors kept per violation. */
export const MAX_TARGETS = 3;
/** Most revealed states checked (and named) per page. */
export const MAX_STATES = 50;

/** How the accessibility check runs. */
export interface A11yOptions {
  /** axe-core tags to run (`--a11y-tags`). @default DEFAULT_A11Y_TAGS */
  tags: readonly string[];
}

/** What axe-core answers (`AxeBuilder.analyze()`). */
type AxeResults = Awaited<ReturnType<AxeBuilder['analyze']>>;
/** One failing element of an axe-core result. */
type AxeNode = AxeResults['violations'][number]['nodes'][number];

/** An element's selector as one string: shadow hosts joined by ` >> `, frames by ` | ` (see `A11yViolation.targets`). */
export function targetText(target: AxeNode['target']): string {
  return target.map((t) => (Array.isArray(t) ? t.join(' >> ') : String(t))).join(' | ');
}

/** axe-core's impact if it is one of the four it documents, else `null`. */
function impactOf(v: string | null | undefined): A11yImpact | null {
  return v === 'minor' || v === 'moderate' || v === 'serious' || v === 'critical' ? v : null;
}

/**
 * One clickable that led to a revealed state: its accessible name and its role (or tag when it
 * has no role).
 */
export interface ClickStep {
  name: string;
  kind: string;
}

/**
 * The name of the state clicks revealed on the page at `pageUrl`:
 * `after clicking "Pricing" (button) on /`, or for a chain of clicks
 * `after clicking "Products" (button), then "Pricing" (menuitem) on /docs?v=2`.
 */
export function stateName(steps: readonly ClickStep[], pageUrl: string): string {
  let where = pageUrl;
  try {
    const u = new URL(pageUrl);
    where = `${u.pathname}${u.search}${u.hash}`;
  } catch {
    // not a URL: named as it is
  }
  const clicks = steps.map((s) => `"${s.name.replace(/"/g, "'")}" (${s.kind})`).join(', then ');
  return `after clicking ${clicks} on ${where}`;
}

/** A failing element handed to {@link markFailing}: an axe-core rule and the element's selector path in the top document (shadow hosts first). */
interface FailingElement {
  rule: string;
  path: string[];
}

/**
 * In-page: for each failing element, whether it already failed the same rule in an earlier run
 * of this page (`true`/`false`), or `null` when its selector finds no element; then remember
 * them all. Elements are kept in a `WeakMap` of the page, so identity survives selectors that
 * change when a click inserts siblings. Serialized by Playwright: closes over nothing.
 */
export function markFailing(items: FailingElement[]): (boolean | null)[] {
  const w = window as unknown as { __spacrawlA11y?: WeakMap<Element, Set<string>> };
  const seen = (w.__spacrawlA11y ??= new WeakMap());
  const found = items.map(({ path }) => {
    let root: Document | ShadowRoot | null = document;
    let el: Element | null = null;
    for (const sel of path) {
      try {
        el = root ? root.querySelector(sel) : null;
      } catch {
        el = null;
      }
      root = el?.shadowRoot ?? null;
      if (!el) break;
    }
    return el;
  });
  const out = items.map((it, i) => {
    const el = found[i];
    return el ? (seen.get(el)?.has(it.rule) ?? false) : null;
  });
  items.forEach((it, i) => {
    const el = found[i];
    if (!el) return;
    let rules = seen.get(el);
    if (!rules) seen.set(el, (rules = new Set()));
    rules.add(it.rule);
  });
  return out;
}

/**
 * The accessibility check of one page: {@link A11yChecker.checkPage} once, then
 * {@link A11yChecker.checkState} for each state a click revealed. A state records only elements
 * that did not fail the same rule already (on the page as read or in an earlier state): the
 * element itself is recognized in the page (see {@link markFailing}), so an opened menu reports
 * the menu's own failures; an element inside a frame is recognized by its selector.
 */
export class A11yChecker {
  /** The result so far (recorded as the page's `a11y`). */
  readonly audit: A11yAudit;
  /** `rule \0 selector` of failing elements inside frames reported so far. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly page: Page,
    private readonly opts: A11yOptions,
  ) {
    this.audit = { engine: 'axe-core', tags: [...opts.tags], violations: [], states: [], error: null };
  }

  /** Run axe-core on the page as it is now, within `timeoutMs`; past it, wait up to {@link A11Y_PAGE_TIMEOUT_MS} more for the run to end in the page before throwing. @throws CallTimeoutError or axe-core's error */
  private async run(timeoutMs: number): Promise<AxeResults> {
    // Loaded on first use: axe-core's source is read at import (about 0.3–0.7 s), which a crawl without --a11y should not pay.
    const { AxeBuilder } = await import('@axe-core/playwright');
    const builder = new AxeBuilder({ page: this.page }).withTags([...this.opts.tags]);
    const analysis = builder.analyze();
    let results: AxeResults;
    try {
      results = await withTimeout(analysis, timeoutMs, 'the accessibility check');
    } catch (err) {
      // axe-core goes on in the page after the timeout and keeps its main thread busy: what the
      // visit does next (click discovery) would time out against it and fail a page that is fine.
      // Wait for it to end, at most A11Y_PAGE_TIMEOUT_MS more (the visit's own deadline still applies).
      await withTimeout(analysis, A11Y_PAGE_TIMEOUT_MS, 'the accessibility check').catch(() => {});
      throw err;
    }
    this.audit.engine = `axe-core ${results.testEngine.version}`;
    return results;
  }

  /** Keep the elements of `results` not reported yet, as violations of `state`. */
  private async keep(results: AxeResults, state: string | null): Promise<number> {
    const items: FailingElement[] = [];
    const where: [number, number][] = [];
    results.violations.forEach((v, i) =>
      v.nodes.forEach((n, j) => {
        if (n.target.length !== 1) return; // inside a frame: recognized by selector below
        const t = n.target[0]!;
        items.push({ rule: v.id, path: Array.isArray(t) ? t.map(String) : [String(t)] });
        where.push([i, j]);
      }),
    );
    const known = await withTimeout(this.page.evaluate(markFailing, items), 5_000, 'recognizing failing elements').catch(() => items.map(() => null));
    const byElement = new Map<string, boolean | null>();
    where.forEach(([i, j], k) => byElement.set(`${i}/${j}`, known[k] ?? null));
    let added = 0;
    results.violations.forEach((v, i) => {
      const nodes = v.nodes.filter((n, j) => {
        const key = `${v.id}\u0000${targetText(n.target)}`;
        const mark = byElement.get(`${i}/${j}`);
        const old = mark ?? this.seen.has(key);
        this.seen.add(key);
        return !old;
      });
      if (!nodes.length) return;
      this.audit.violations.push({
        rule: v.id,
        impact: impactOf(v.impact),
        help: v.help,
        helpUrl: v.helpUrl,
        nodes: nodes.length,
        targets: nodes.slice(0, MAX_TARGETS).map((n) => targetText(n.target)),
        state,
      } satisfies A11yViolation);
      added++;
    });
    return added;
  }

  /** Check the page as read. A failure is kept in `audit.error`; never throws. */
  async checkPage(timeoutMs = A11Y_PAGE_TIMEOUT_MS): Promise<void> {
    try {
      await this.keep(await this.run(timeoutMs), null);
    } catch (err) {
      this.audit.error = `the page: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
    }
  }

  /**
   * Check the state clicks revealed (named by {@link stateName}), within `timeoutMs`; at most
   * {@link MAX_STATES} per page. A failure is kept in `audit.error` (the first one); never throws.
   * @returns the number of axe-core rules with new failing elements in this state
   */
  async checkState(name: string, timeoutMs: number): Promise<number> {
    if (this.audit.states.length >= MAX_STATES || timeoutMs <= 0) return 0;
    this.audit.states.push(name);
    try {
      return await this.keep(await this.run(timeoutMs), name);
    } catch (err) {
      this.audit.error ??= `${name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
      return 0;
    }
  }
}
