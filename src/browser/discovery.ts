/**
 * What the visit and its link finders (the DOM read, frames, scroll and click discovery)
 * exchange: the links they found, and the probe that tells them the page has gone quiet.
 * Imports only the model, so every finder can use it without importing the visit.
 * @module
 */
import type { LinkSource } from '../model/record.js';

/** A link found by a visit, before the link pipeline. */
export interface FoundLink {
  /** Absolute URL as the browser resolved it (fragment kept). */
  href: string;
  /** The link's text (anchor text, or the name of what was clicked); '' when none. */
  text: string;
  /** How it was found (see `LinkSource`). */
  source: LinkSource;
  /** The link's `rel` attribute, lowercased (e.g. `nofollow`); '' when none. */
  rel: string;
}

/** `true` once the page's network and DOM have been quiet for `quietMs` (ms). */
export type QuietProbe = (quietMs: number) => Promise<boolean>;

/**
 * Wait until the page has done what the last step (a click, going back) started, by the same
 * settle rule as the page's load (see `judgeSettle`), at most `capMs` (ms). Resolves `true` when
 * the page settled, `false` when the cap ran out first (or the page could not be read). Never throws.
 */
export type SettleWait = (capMs: number) => Promise<boolean>;
