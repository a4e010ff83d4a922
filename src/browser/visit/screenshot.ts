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

/** Longest wait for `document.fonts.ready` before the shot is taken anyway (ms). */
const FONTS_WAIT_MS = 5_000;

/** Colour of `--visual-mask` boxes: the same on every run, rare on real pages. */
export const MASK_COLOR = '#FF00FF';

/** How a shot is taken when the visit gives no {@link ScreenshotSettings}: the whole page, nothing hidden. */
const DEFAULT_SETTINGS: ScreenshotSettings = { fullPage: true, hide: [], mask: [] };

/**
 * The style sheet applied during the shot only (Playwright's `style` option): `--hide` elements
 * get `visibility: hidden` (their space is kept, so the layout does not move).
 */
export function shotStyle(hide: readonly string[]): string | undefined {
  return hide.length ? hide.map((s) => `${s} { visibility: hidden !important; }`).join('\n') : undefined;
}

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
      if (!s.fullPage) await ctx.step(ctx.page.evaluate(() => window.scrollTo(0, 0)).catch(() => {}));
      const shot = ctx.page.screenshot({
        path,
        fullPage: s.fullPage,
        animations: 'disabled',
        caret: 'hide',
        scale: 'css',
        style: shotStyle(s.hide),
        mask: s.mask.map((sel) => ctx.page.locator(sel)),
        maskColor: MASK_COLOR,
        // Timed by withTimeout below (stall-tolerant), not by Playwright's own timer.
        timeout: 0,
      });
      await ctx.step(withTimeout(shot, 20_000, 'taking a screenshot'));
      ctx.result.screenshot = true;
    },
  };
}
