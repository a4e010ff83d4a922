import type { Soft404Reason } from '../model/record.js';
import { shingles, similarity } from './fingerprint.js';

/**
 * Titles and headings that say "not found": "404" at the start ("404", "404 | Site"), "404"
 * next to "error", "not found" or "page" ("Error 404", "404 - Page not found"), or the words
 * alone ("Page not found", "This page could not be found", "Sorry, we couldn't find it",
 * "This page doesn't exist"). A number that merely contains 404 ("Page 404", "Flight 404") is
 * not enough. Only read on near-empty pages (see {@link notFoundByText}): a troubleshooting
 * guide titled "Fixing 404 Not Found errors" says it too.
 */
export const NOT_FOUND_TEXT =
  /^\s*404\b|\b404\s*[-–—:|]?\s*(?:error|not found|page)\b|\berror\s*[-:]?\s*404\b|\bnot found\b|\bpage (?:does not|doesn['’]t|cannot be found|could not be found)|\bno such page\b|\b(?:could ?n[o'’]?t|can ?n?[o'’]?t|unable to) find (?:it|this|that|the|what|anything)\b|\b(?:does not|doesn['’]t|no longer) exists?\b/i;

/** Similarity at or above which a page's rendering "matches" a not-found probe. */
export const SOFT404_SIMILARITY = 0.9;

/** A page with at most this many words of visible text besides its title is near-empty. */
export const NEAR_EMPTY_WORDS = 80;

/** A near-empty page with more headings than this is not a not-found screen by its text alone. */
export const MAX_NOT_FOUND_HEADINGS = 2;

/** A probe rendering with fewer 3-word shingles than this is too thin to be a fingerprint. */
export const MIN_FINGERPRINT_SHINGLES = 3;

/** Probes per origin at most: the root and the route prefixes of pages found (each at most {@link MAX_PREFIX_DEPTH} segments deep). */
export const MAX_PROBES_PER_ORIGIN = 8;

/** Deepest route prefix probed, in path segments (`/-/web/` is 2). */
export const MAX_PREFIX_DEPTH = 2;

/** What a probe rendered. */
export interface ProbeResult {
  /** Title and visible text, normalized (see `extractPage`). */
  text: string;
  /** The rendered title, when known (see {@link SoftNotFound}: it tells a 404 screen from a page of the same layout). */
  title?: string | null;
  /** HTTP status of the probe's main document. */
  status: number | null;
  /** The probe URL's path. */
  path: string;
  /** Where the probe ended, after server and client redirects (absolute), or `null`. */
  finalUrl: string | null;
  /**
   * SHA-1 (hex) of the probe's document as the server sent it (read beside the rendering, see the
   * visit's inspect stage), or `null` when it was not read: what a later probe's plain request is
   * compared with (see {@link ProbeAsk.known}).
   */
  digest: string | null;
}

/** How a probe may be asked for (see {@link ProbeRunner}). */
export interface ProbeAsk {
  /**
   * An earlier probe of the origin answered with no page (see {@link NO_PAGE}): ask over plain
   * HTTP first and render only when the answer is a page (a redirect, HTML). On a static site
   * that answers every unknown path with a plain "not found", each route prefix's probe then
   * costs one request and no tab.
   */
  plainFirst: boolean;
  /**
   * Earlier probes of the origin that rendered a 404 or 410 document whose bytes are known
   * ({@link ProbeResult.digest}). When there are any, the probe is asked for over plain HTTP first
   * too, and an answer with the same status and the same bytes as one of them is that probe's
   * rendering again: not rendered. A static site with an HTML "not found" page (most hosted sites)
   * answers every directory's probe with the same document, and the first page of each directory
   * waited for its probe's page load. A page whose bytes differ (one that prints the path, or a
   * token) is rendered as before.
   */
  known: readonly ProbeResult[];
}

/**
 * What a probe gets when its URL answered with no page (a text/plain or JSON "not found", an
 * attachment: see `rendersAsPage`): no fingerprint, and the server is one that answers unknown
 * paths so, which lets the origin's later probes ask over plain HTTP first (see
 * {@link ProbeRunner}).
 */
export const NO_PAGE = 'no-page';

/**
 * Renders one probe URL and returns what it rendered (or, see {@link ProbeAsk.known}, an earlier
 * probe's rendering that its plain answer repeats), {@link NO_PAGE}, or `null` if it failed.
 * - `queued`: through the crawl's concurrency limit (a probe started ahead of the pages);
 *   otherwise at once (a page waits for it).
 * - `ask`: whether to ask over plain HTTP first (see {@link ProbeAsk}).
 */
export type ProbeRunner = (url: string, queued: boolean, ask: ProbeAsk) => Promise<ProbeResult | typeof NO_PAGE | null>;

/**
 * The probe of `known` whose document a plain answer repeats: same status (404 or 410 only: a
 * 200 shell renders by its URL's route) and same bytes; `undefined` when none does.
 * @param status - the plain answer's status
 * @param digest - SHA-1 (hex) of its body, or `null` when it was not read whole
 */
export function repeatedProbe(known: readonly ProbeResult[], status: number, digest: string | null): ProbeResult | undefined {
  if (digest === null || (status !== 404 && status !== 410)) return undefined;
  return known.find((k) => k.status === status && k.digest === digest);
}

/** A rendered page to judge. */
export interface RenderedPage {
  /** The page's final URL. */
  url: string;
  /** HTTP status (only 200s can be soft 404s). */
  status: number | null;
  title: string;
  /** Texts of the page's headings (`h1`–`h6`, `role="heading"`), in document order. */
  headings: readonly string[];
  /** Title and visible text, normalized (see `extractPage`). */
  text: string;
}

/** A probe's rendering, kept as the not-found fingerprint of one route prefix. */
interface Fingerprint {
  prefix: string;
  shingles: Set<string>;
  status: number | null;
  /** Where the probe ended when that was not the probe URL (a redirect), else `null`. */
  redirectedTo: string | null;
  /** The probe rendered a real page (the seed, or its prefix's own index page): not a not-found screen. */
  fallback: boolean;
  /** The probe's rendered title (whitespace collapsed), or `null` when not known. */
  title: string | null;
}

/**
 * `false` when `page` cannot be the not-found screen `fp` rendered although their texts may be
 * alike: a server that answers unknown URLs with a real 404 or 410 knows its not-found page, and
 * one of its pages answering 200 under another title is a page of the same layout (a
 * documentation site whose sidebar is most of every page's text), not that screen.
 */
function sameScreen(fp: Fingerprint, page: RenderedPage): boolean {
  if (fp.status !== 404 && fp.status !== 410) return true;
  return fp.title === null || fp.title === titleKey(page.title);
}

/** A title compared with another: whitespace collapsed, case ignored. */
const titleKey = (t: string): string => t.replace(/\s+/g, ' ').trim().toLowerCase();

interface OriginState {
  /** Route prefix (`/`, `/app/`) → its probe. */
  probes: Map<string, Promise<Fingerprint | null>>;
  /** Shingles of the origin's seed page, once judged. */
  seed: Set<string> | null;
  /** `true` once a probe of the origin answered with no page (see {@link NO_PAGE}). */
  noPage: boolean;
  /** The origin's probes that rendered a 404 or 410 document of known bytes (see {@link ProbeAsk.known}). */
  known: ProbeResult[];
}

/**
 * The route prefixes a page's not-found screen may be learned under: `/`, then each directory
 * of its path up to {@link MAX_PREFIX_DEPTH} segments (`/app/settings/profile` → `/`, `/app/`,
 * `/app/settings/`; `/docs` → `/`).
 */
export function routePrefixes(path: string): string[] {
  const segs = path.split('/').slice(1, -1).filter(Boolean);
  const out = ['/'];
  for (let i = 0; i < Math.min(segs.length, MAX_PREFIX_DEPTH); i++) out.push(`/${segs.slice(0, i + 1).join('/')}/`);
  return out;
}

/** Number of words in `text` (letters or digits). */
function wordCount(text: string): number {
  return text.split(/[^\p{L}\p{N}]+/u).filter(Boolean).length;
}

/**
 * The text rule: a near-empty page (at most {@link NEAR_EMPTY_WORDS} words besides its title,
 * at most {@link MAX_NOT_FOUND_HEADINGS} headings) whose heading or title says "not found"
 * ({@link NOT_FOUND_TEXT}). A long page saying it (an article about 404 errors) is not one.
 * @returns the reason, or `null`
 */
export function notFoundByText(page: Pick<RenderedPage, 'title' | 'headings' | 'text'>): Soft404Reason | null {
  const bodyWords = Math.max(0, wordCount(page.text) - wordCount(page.title));
  if (bodyWords > NEAR_EMPTY_WORDS || page.headings.length > MAX_NOT_FOUND_HEADINGS) return null;
  if (page.headings.some((h) => NOT_FOUND_TEXT.test(h))) return 'not-found-heading';
  if (NOT_FOUND_TEXT.test(page.title)) return 'not-found-title';
  return null;
}

/**
 * Soft-404 detection. A page answering 200 is flagged only on evidence that it is the site's
 * not-found screen:
 * - `fingerprint`: its rendering matches (Jaccard similarity of 3-word shingles >=
 *   {@link SOFT404_SIMILARITY}) what a made-up URL (`…/spacrawl-probe-xxxx`) rendered under
 *   the same route prefix. Each origin is probed at `/`; a page answering 200 under a prefix
 *   where the probe got a 404 or 410 (an app mounted at `/app/` on a server that answers
 *   unknown paths elsewhere with a plain 404) has its prefixes probed too, shallowest first,
 *   until one answers 200 (the app's own "not found" screen), at most
 *   {@link MAX_PROBES_PER_ORIGIN} probes per origin. A 404 or 410 probe's rendering counts too
 *   when it has at least {@link MIN_FINGERPRINT_SHINGLES} shingles (a screen of its own, not
 *   a bare "Not found") whose title the page shares: a page answering 200 under another
 *   title on such a server is a page of the same layout (a long shared sidebar), not its
 *   not-found screen. A probe that rendered a real page (the
 *   seed, or its prefix's index page, as apps that show their start page for every unknown
 *   route do) is no fingerprint, and the page a probe was redirected to is never matched to it;
 * - `not-found-heading` / `not-found-title`: see {@link notFoundByText}.
 */
export class SoftNotFound {
  private readonly origins = new Map<string, OriginState>();
  private readonly fallbackOrigins = new Set<string>();

  /**
   * @param runProbe - renders one probe URL (see {@link ProbeRunner})
   * @param onNote - told once per origin when a probe renders a real page (fingerprints off there)
   */
  constructor(
    private readonly runProbe: ProbeRunner,
    private readonly onNote: (note: string) => void,
  ) {}

  /** A probe URL under `prefix` (`/` or `/app/`) of `origin`. */
  static probeUrl(origin: string, prefix = '/'): string {
    return `${origin}${prefix}spacrawl-probe-${Math.random().toString(36).slice(2, 10)}`;
  }

  private state(origin: string): OriginState {
    let st = this.origins.get(origin);
    if (!st) {
      st = { probes: new Map(), seed: null, noPage: false, known: [] };
      this.origins.set(origin, st);
    }
    return st;
  }

  /**
   * The probe of `prefix`, started if it has none and the origin's budget allows.
   * @returns `undefined` when the budget is spent and the prefix was never probed
   */
  private probe(origin: string, prefix: string, queued: boolean): Promise<Fingerprint | null> | undefined {
    const st = this.state(origin);
    const known = st.probes.get(prefix);
    if (known) return known;
    if (st.probes.size >= MAX_PROBES_PER_ORIGIN) return undefined;
    const url = SoftNotFound.probeUrl(origin, prefix);
    const p = this.runProbe(url, queued, { plainFirst: st.noPage, known: [...st.known] }).then((r): Fingerprint | null => {
      if (r === NO_PAGE) st.noPage = true;
      if (!r || r === NO_PAGE) return null;
      if (r.digest !== null && (r.status === 404 || r.status === 410) && !st.known.some((k) => k.digest === r.digest && k.status === r.status)) st.known.push(r);
      const redirectedTo = r.finalUrl && stripHash(r.finalUrl) !== url ? stripHash(r.finalUrl) : null;
      return { prefix, shingles: shingles(r.text, r.path), status: r.status, redirectedTo, fallback: false, title: typeof r.title === 'string' ? titleKey(r.title) : null };
    });
    st.probes.set(prefix, p);
    return p;
  }

  /** Start the root probe of an origin (through the concurrency limit) if it has none yet. */
  ensure(origin: string): void {
    this.probe(origin, '/', true);
  }

  /**
   * Judge a rendered page.
   * @param page - what the page rendered
   * @param isSeed - a seed: probes rendering the same as it are start-page fallbacks
   * @returns why it is a soft 404, or `null` when it is not one
   */
  async judge(page: RenderedPage, isSeed: boolean): Promise<Soft404Reason | null> {
    if (page.status !== 200) return null;
    const u = new URL(page.url);
    const st = this.state(u.origin);
    // The page's shingles, made only when a probe is there to compare them with (most probes are a
    // plain 404 with too few shingles to be a fingerprint): on a documentation site a page's text
    // is long, and its shingles were most of the judging's cost.
    let made: Set<string> | null = null;
    const mine = (): Set<string> => (made ??= shingles(page.text, u.pathname));
    if (isSeed && !st.seed) st.seed = mine();
    const here = stripHash(page.url);
    for (const prefix of routePrefixes(u.pathname)) {
      const pending = this.probe(u.origin, prefix, false);
      if (!pending) break;
      const fp = await pending;
      if (!fp) continue;
      if (fp.status !== 200 && fp.status !== 404 && fp.status !== 410) break;
      this.checkFallback(u.origin, fp, st, mine, u.pathname);
      if (!fp.fallback && fp.shingles.size >= MIN_FINGERPRINT_SHINGLES && fp.redirectedTo !== here && sameScreen(fp, page) && similarity(mine(), fp.shingles) >= SOFT404_SIMILARITY) {
        return 'fingerprint';
      }
      // A 200 here: this is where the app answers unknown routes; deeper probes learn nothing more.
      if (fp.status === 200) break;
    }
    return notFoundByText(page);
  }

  /** Mark a 200 probe that rendered the seed or its prefix's own index page as a fallback (noted once per origin). */
  private checkFallback(origin: string, fp: Fingerprint, st: OriginState, mine: () => Set<string>, path: string): void {
    if (fp.fallback || fp.status !== 200) return;
    const isIndex = path === fp.prefix;
    const asSeed = st.seed !== null && similarity(st.seed, fp.shingles) >= SOFT404_SIMILARITY;
    const asIndex = isIndex && similarity(mine(), fp.shingles) >= SOFT404_SIMILARITY;
    if (!asSeed && !asIndex) return;
    fp.fallback = true;
    if (this.fallbackOrigins.has(origin)) return;
    this.fallbackOrigins.add(origin);
    const where = fp.prefix === '/' ? '' : ` under ${fp.prefix}`;
    this.onNote(`${origin} renders its start page for unknown routes${where}: soft-404 fingerprint matching is off there (titles and headings of near-empty pages still count)`);
  }
}

function stripHash(u: string): string {
  try {
    const x = new URL(u);
    x.hash = '';
    return x.href;
  } catch {
    return u;
  }
}
