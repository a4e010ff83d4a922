/**
 * How one click's links relate to another's, for click discovery's chains of clicks ("Next",
 * "Load more": see `exploreClicks`). Links are compared by identity (see `identity` in `explore.ts`).
 * @module
 */

/**
 * `true` when a click undid what an earlier click showed: every link that click showed
 * (`shown`, not empty) is gone from the page now (`now`), and the click showed no link the page
 * had not shown before (`fresh` is 0). A disclosure clicked again that closes, a pager's
 * "Previous" after its "Next", a carousel's previous arrow, "Show less" after "Show more".
 * @param shown - link identities the earlier click added to the page
 * @param now - every link identity on the page after this click
 * @param fresh - links this click showed that the page never showed before
 */
export function undoes(shown: ReadonlySet<string>, now: ReadonlySet<string>, fresh: number): boolean {
  if (fresh > 0 || shown.size === 0) return false;
  for (const u of shown) if (now.has(u)) return false;
  return true;
}

/**
 * `true` when every link in `shown` (not empty) is on the page again (`now`): a chain's click
 * that another control had undone (see {@link undoes}) brought its step back.
 */
export function showsAgain(shown: ReadonlySet<string>, now: ReadonlySet<string>): boolean {
  if (shown.size === 0) return false;
  for (const u of shown) if (!now.has(u)) return false;
  return true;
}
