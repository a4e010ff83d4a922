/**
 * Stage: discover. Finds what a person reaches beyond the page's anchors: scrolling (`scroll`,
 * see `scrollForLinks`) and clicking (`click`, see `exploreClicks`). After each scroll step the
 * page must go quiet; after each click it must settle by the page load's own rule
 * (`waitForSettle`, capped at the click wait).
 * @module
 */
import type { FoundLink, QuietProbe } from '../discovery.js';
import { exploreClicks, scrollForLinks, type RevealedHook } from '../explore.js';
import { settleState } from '../settle-scripts.js';
import { withTimeout } from '../timeout.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';
import { waitForSettle } from './settle.js';

/**
 * The discover stage (one per visit). Adds the links found (sources `scroll`, `click`) and the
 * number of clicks.
 * @param revealed - gives the hook told about each state a click revealed (see `ClickOptions.onRevealed`), or `null`
 */
export function discover(revealed: (ctx: VisitContext) => RevealedHook | null = () => null): Stage<VisitContext> {
  return {
    name: 'discover',
    async action(ctx) {
      const { opts, page: p, result, activity: act } = ctx;
      if (!opts.scroll && !opts.click) return;
      const known = new Set(result.links.map((l) => l.href));
      let told = false;
      const beforeDiscovery = (): void => {
        if (told) return;
        told = true;
        opts.linksFound?.(result, result.links);
      };
      const quiet: QuietProbe = async (ms) => {
        if (act.inflight.size > 0 || Date.now() - act.lastNet < ms) return false;
        const st = await withTimeout(p.evaluate(settleState), 2_000, 'reading the settle state').catch(() => ({ loaded: false, quietForMs: 0, callsStarted: 0, sinceCallMs: Infinity }));
        // A call the page started whose request has not been heard of yet is network activity too.
        return st.quietForMs >= ms && !act.hasUnheardCall(st);
      };
      if (opts.scroll) {
        beforeDiscovery();
        result.links.push(...(await ctx.step(scrollForLinks(p, known, opts.scroll, quiet))));
        ctx.clickables = undefined;
      }
      if (opts.click) {
        const onRevealed = revealed(ctx);
        const onFound = (links: readonly FoundLink[]): void => opts.linksFound?.(result, links);
        const click = { ...opts.click, ...(onRevealed ? { onRevealed } : {}), beforeFirstClick: beforeDiscovery, onFound };
        const settleWait = async (capMs: number): Promise<boolean> => waitForSettle(ctx, capMs).catch(() => false);
        // What a click makes the page ask for is content, not a re-poll (see `RepollWatch.newAction`).
        // What the page raises from the first click on is the clicks' (see `ClickDiscovery.errors`).
        const onClick = (signature: string): void => {
          ctx.clicking = signature;
          act.repoll.newAction();
        };
        const ex = await ctx.step(exploreClicks(p, known, click, settleWait, onClick, ctx.clickables));
        result.links.push(...ex.links);
        result.clicks = ex.clicks;
        // The same array as the context's: what the last click raises after this still lands.
        result.clickDiscovery = { made: ex.clicks, skipped: ex.skipped, clicked: ex.clicked, errors: ctx.clickErrors };
      }
    },
  };
}
