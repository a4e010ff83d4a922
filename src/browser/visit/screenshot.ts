/**
 * Stage: screenshot. Writes a PNG of the settled page to `screenshotPath`, when one is asked
 * for, taken the same way on every run so that two crawls of an unchanged page give the same
 * pixels (what `spacrawl diff` compares): web fonts loaded, CSS animations and transitions
 * finished (Playwright's `animations: "disabled"`), the text caret hidden, one image pixel per
 * CSS pixel whatever the device scale factor, `--hide` elements invisible and `--visual-mask`
 * elements painted over. The context's `prefers-reduced-motion: reduce` is set by the session.
 * @module
 */
import type { Page } from 'playwright';
import { withTimeout } from '../timeout.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';
import type { ScreenshotSettings } from './types.js';
import { waitForSettle } from './settle.js';
import { documentSize, PANEL_ANCESTOR_ATTR, PANEL_ATTR, prepareFullPage, unmarkPanel } from './shot-scripts.js';
import { findScrollAreas } from '../scroll-scripts.js';

/** Longest wait for `document.fonts.ready` before the shot is taken anyway (ms). */
const FONTS_WAIT_MS = 5_000;

/**
 * Tallest full-page shot (CSS px). Chromium paints nothing past a certain area (a 1280 px wide
 * page came out blank below ~86,600 px, a 4,000 px wide one below ~32,150 px), and comparing two
 * shots decodes both (4 bytes a pixel each): a taller page is shot down to this height.
 */
export const MAX_SHOT_HEIGHT = 32_768;
/** Most pixels of a full-page shot: a wider page is shot less tall (below Chromium's blank area, see {@link MAX_SHOT_HEIGHT}). */
export const MAX_SHOT_PIXELS = 2 ** 26;
/** Longest wait for one scroll step of the lazy-content walk to render (ms; see `walkWindow`). */
const WALK_FRAME_MS = 1_000;
/** Longest wait for what the walk started loading (lazy images, revealed sections) to settle (ms). */
const WALK_SETTLE_MS = 5_000;

/** Colour of `--visual-mask` boxes: the same on every run, rare on real pages. */
export const MASK_COLOR = '#FF00FF';

/** How a shot is taken when the visit gives no {@link ScreenshotSettings}: the whole page, nothing hidden. */
const DEFAULT_SETTINGS: ScreenshotSettings = { fullPage: true, hide: [], mask: [] };

/**
 * The style sheet applied during the shot only (Playwright's `style` option): `--hide` elements
 * get `visibility: hidden` (their space is kept, so the layout does not move).
 */
export function shotStyle(hide: readonly string[], panel = false): string | undefined {
  const rules = hide.map((s) => `${s} { visibility: hidden !important; }`);
  if (panel) rules.push(PANEL_STYLE);
  return rules.length ? rules.join('\n') : undefined;
}

/**
 * During the full-page shot of an app that scrolls inside a panel (see `prepareFullPage`): the
 * panel and its ancestors grow to their content, so the document is as tall as the panel's
 * content and the shot takes all of it.
 */
const PANEL_STYLE = `[${PANEL_ATTR}], [${PANEL_ANCESTOR_ATTR}] { height: auto !important; max-height: none !important; overflow: visible !important; }
[${PANEL_ATTR}] { bottom: auto !important; }`;

/** Wait for the page's web fonts (`document.fonts.ready`), at most {@link FONTS_WAIT_MS}; never throws. */
async function fontsLoaded(page: Page): Promise<void> {
  await withTimeout(
    page.evaluate(async () => {
      await document.fonts?.ready;
    }),
    FONTS_WAIT_MS,
    'waiting for fonts',
  ).catch(() => {});
}

/** The screenshot stage (one per visit). Sets `screenshot` once the file is written; a failure ends the visit with an error. */
export function screenshot(): Stage<VisitContext> {
  return {
    name: 'screenshot',
    async action(ctx) {
      const path = ctx.opts.screenshotPath;
      if (!path) return;
      // Scrolled and restyled for the shot: click discovery scans again.
      ctx.clickables = undefined;
      const s = ctx.opts.screenshot ?? DEFAULT_SETTINGS;
      await ctx.step(fontsLoaded(ctx.page));
      let clip: { x: number; y: number; width: number; height: number } | undefined;
      let panel = false;
      if (s.fullPage) {
        // Lazy loaders that wait for their element to scroll into view: walk the page once, then let what it started load.
        // The panel an app scrolls in is its largest scroll area, as scroll discovery finds them.
        await ctx.callOr(() => ctx.page.evaluate(findScrollAreas, 1), 'finding the scroll areas', 0);
        const prep = await ctx.callOr(() => ctx.page.evaluate(prepareFullPage, { maxY: MAX_SHOT_HEIGHT, frameMs: WALK_FRAME_MS }), 'scrolling the page for lazy content', null);
        panel = prep?.panel ?? false;
        if (prep && prep.steps > 0) {
          await ctx.step(waitForSettle(ctx, Math.min(ctx.opts.settleTimeoutMs, WALK_SETTLE_MS)));
          await ctx.step(fontsLoaded(ctx.page));
        }
        const size = await ctx.callOr(() => ctx.page.evaluate(documentSize, panel ? PANEL_STYLE : null), 'measuring the page', null);
        const height = size ? Math.min(MAX_SHOT_HEIGHT, Math.floor(MAX_SHOT_PIXELS / Math.max(1, size.width))) : MAX_SHOT_HEIGHT;
        if (size && size.height > height) clip = { x: 0, y: 0, width: size.width, height };
      } else await ctx.step(ctx.page.evaluate(() => window.scrollTo(0, 0)).catch(() => {}));
      const shot = ctx.page.screenshot({
        clip,
        path,
        fullPage: s.fullPage,
        animations: 'disabled',
        caret: 'hide',
        scale: 'css',
        style: shotStyle(s.hide, panel),
        mask: s.mask.map((sel) => ctx.page.locator(sel)),
        maskColor: MASK_COLOR,
        // Timed by withTimeout below (stall-tolerant), not by Playwright's own timer.
        timeout: 0,
      });
      await ctx.step(withTimeout(shot, 20_000, 'taking a screenshot'));
      if (panel) await ctx.callOr(() => ctx.page.evaluate(unmarkPanel), 'unmarking the panel', null);
      ctx.result.screenshot = true;
    },
  };
}
