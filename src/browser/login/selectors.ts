/**
 * Chrome DevTools Recorder selectors as Playwright locators. A Recorder step names its element
 * by a list of alternatives (`selectors`), each a string or an array of strings: an array is a
 * chain, each part looked up inside the element the previous one found (inside its shadow root
 * when it has one). A part is CSS, or has a prefix: `aria/` (accessible name, optionally
 * `[role="…"]`), `xpath/`, `text/` or `pierce/` (CSS that crosses shadow roots). Source: the
 * `StepWithSelectors` type of `@puppeteer/replay`'s `Schema.ts`.
 * @module
 */
import type { Frame, Locator, Page } from 'playwright';

/** One selector alternative as the Recorder writes it. */
export type RecorderSelector = string | string[];

/** Where a locator is looked up from: the page, a frame, or an element found by an earlier part of a chain. */
type Root = Page | Frame | Locator;

/**
 * A locator for one part of a chain, looked up in `root`. Playwright's CSS and text engines
 * cross open shadow roots by themselves, which is what a chain part after a shadow host and
 * `pierce/` ask for.
 */
export function partLocator(root: Root, part: string): Locator {
  if (part.startsWith('aria/')) return ariaLocator(root, part.slice(5));
  if (part.startsWith('xpath/')) return root.locator(`xpath=${part.slice(6)}`);
  if (part.startsWith('text/')) return root.getByText(part.slice(5));
  if (part.startsWith('pierce/')) return root.locator(part.slice(7));
  return root.locator(part);
}

/**
 * `aria/Name` or `aria/Name[role="button"]`: an element whose accessible name is `Name` (exactly),
 * of that role when one is given; without a role, a labelled form field, a button, a link or a
 * field with that placeholder.
 */
function ariaLocator(root: Root, spec: string): Locator {
  const m = /^(.*?)\[role="([^"]+)"\]$/.exec(spec);
  const name = m ? m[1]! : spec;
  if (m) return root.getByRole(m[2]! as Parameters<Page['getByRole']>[0], { name, exact: true });
  return root
    .getByLabel(name, { exact: true })
    .or(root.getByRole('button', { name, exact: true }))
    .or(root.getByRole('link', { name, exact: true }))
    .or(root.getByPlaceholder(name, { exact: true }));
}

/** The locator of one alternative (a chain is looked up part by part). */
export function alternativeLocator(root: Page | Frame, sel: RecorderSelector): Locator {
  const parts = Array.isArray(sel) ? sel : [sel];
  if (parts.length === 0) throw new Error('an empty selector');
  let loc = partLocator(root, parts[0]!);
  for (const p of parts.slice(1)) loc = partLocator(loc, p);
  return loc;
}

/**
 * Every element any of a step's alternatives finds (the Recorder records several because some
 * go stale; any that still matches will do).
 * @throws Error for a step with no selectors
 */
export function stepElements(root: Page | Frame, selectors: readonly RecorderSelector[]): Locator {
  if (selectors.length === 0) throw new Error('the step has no selectors');
  let loc = alternativeLocator(root, selectors[0]!);
  for (const s of selectors.slice(1)) loc = loc.or(alternativeLocator(root, s));
  return loc;
}

/** The element a step acts on: the first of {@link stepElements}. */
export function stepLocator(root: Page | Frame, selectors: readonly RecorderSelector[]): Locator {
  return stepElements(root, selectors).first();
}

/**
 * The frame a step acts in: `frame` is a path of child-frame indexes from the main frame
 * (`[0, 1]` = the second child of the first child), as the Recorder writes it.
 * @throws Error when the page has no such frame
 */
export function frameOf(page: Page, path: readonly number[] | undefined): Frame {
  let f = page.mainFrame();
  for (const i of path ?? []) {
    const next = f.childFrames()[i];
    if (!next) throw new Error(`the page has no frame ${JSON.stringify(path)}`);
    f = next;
  }
  return f;
}
