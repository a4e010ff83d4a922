/**
 * Accessibility findings grouped by axe-core rule across pages ("`color-contrast` on 34
 * pages"), the way every report shows them instead of one finding per page. Fed one record at a
 * time, so a report that reads the records as a stream keeps one entry per rule and page.
 * @module
 */
import type { A11yImpact, PageRecord } from '../model/record.js';

/** One page in a group: its failing elements for the rule, and the states they showed in. */
export interface A11yGroupPage {
  url: string;
  /** Failing elements on the page (the page as read and its revealed states). */
  nodes: number;
  /** Names of the revealed states with failing elements (`null`, the page as read, left out). */
  states: string[];
}

/** One axe-core rule across the crawl. */
export interface A11yGroup {
  /** axe-core's rule id. */
  rule: string;
  /** Its impact (the most severe seen). */
  impact: A11yImpact | null;
  help: string;
  helpUrl: string;
  /** Pages where it failed, most failing elements first. */
  pages: A11yGroupPage[];
  /** Failing elements over all pages. */
  nodes: number;
}

const IMPACT_ORDER: Record<string, number> = { critical: 0, serious: 1, moderate: 2, minor: 3 };
const rank = (i: A11yImpact | null): number => IMPACT_ORDER[i ?? 'minor'] ?? 4;

/** Groups a11y violations by axe-core rule (see the module comment). */
export class A11yGroups {
  private readonly byRule = new Map<string, A11yGroup & { index: Map<string, A11yGroupPage> }>();

  /** Add a record's violations (records without `a11y` add nothing). */
  add(r: PageRecord): void {
    for (const v of r.a11y?.violations ?? []) {
      let g = this.byRule.get(v.rule);
      if (!g) {
        g = { rule: v.rule, impact: v.impact, help: v.help, helpUrl: v.helpUrl, pages: [], nodes: 0, index: new Map() };
        this.byRule.set(v.rule, g);
      }
      if (rank(v.impact) < rank(g.impact)) g.impact = v.impact;
      let p = g.index.get(r.url);
      if (!p) {
        p = { url: r.url, nodes: 0, states: [] };
        g.index.set(r.url, p);
        g.pages.push(p);
      }
      p.nodes += v.nodes;
      g.nodes += v.nodes;
      if (v.state && !p.states.includes(v.state)) p.states.push(v.state);
    }
  }

  /** The groups: most severe impact first, then most pages, then rule id; pages by failing elements, then URL. */
  groups(): A11yGroup[] {
    return [...this.byRule.values()]
      .map(({ index: _index, ...g }) => ({ ...g, pages: [...g.pages].sort((a, b) => b.nodes - a.nodes || a.url.localeCompare(b.url)) }))
      .sort((a, b) => rank(a.impact) - rank(b.impact) || b.pages.length - a.pages.length || a.rule.localeCompare(b.rule));
  }
}

/** {@link A11yGroups} of `records` at once. */
export function groupA11y(records: Iterable<PageRecord>): A11yGroup[] {
  const g = new A11yGroups();
  for (const r of records) g.add(r);
  return g.groups();
}

/** A group in one line: `color-contrast (serious) on 34 pages, 112 elements`. */
export function a11yGroupLine(g: A11yGroup): string {
  const pages = g.pages.length;
  return `${g.rule} (${g.impact ?? 'no impact'}) on ${pages} page${pages === 1 ? '' : 's'}, ${g.nodes} element${g.nodes === 1 ? '' : 's'}`;
}
