import { shingles, similarity } from './fingerprint.js';

/**
 * Titles and main headings that say "not found": "404" at the start ("404", "404 | Site"),
 * "404" next to "error", "not found" or "page" ("Error 404", "404 - Page not found"), or the
 * words alone ("Page not found", "This page could not be found"). A number that merely contains
 * 404 ("Page 404", "Flight 404") is not enough.
 */
export const NOT_FOUND_TEXT =
  /^\s*404\b|\b404\s*[-–—:|]?\s*(?:error|not found|page)\b|\berror\s*[-:]?\s*404\b|\bnot found\b|\bpage (?:does not|doesn't|cannot be found|could not be found)|\bno such page\b/i;

/** Similarity at or above which a page's rendering "matches" the origin's not-found probe. */
export const SOFT404_SIMILARITY = 0.9;

/** The rendering of an origin's not-found probe. */
export interface ProbeFingerprint {
  /** 3-word shingles of the probe page's title and visible text. */
  shingles: Set<string>;
  /** Status the probe got (a real 404 means the server reports missing pages itself). */
  status: number | null;
}

interface OriginState {
  probe: Promise<ProbeFingerprint | null>;
  /** Fingerprint matching is off when the app renders its home page for unknown routes. */
  matching: boolean;
  decided: boolean;
}

/**
 * Soft-404 detection per origin. Each origin gets one probe: a URL that cannot exist
 * (a random path containing `spacrawl-probe`), rendered like a page; its title plus visible
 * text is the origin's "not found" fingerprint. A page with HTTP 200 whose rendering matches
 * that fingerprint, or whose title or main heading says "not found"/"404", is a soft 404.
 * When the probe renders the same as the seed (apps that show their home page for every
 * unknown route), fingerprint matching is switched off for the origin and only the
 * title/heading rule applies.
 */
export class SoftNotFound {
  private readonly origins = new Map<string, OriginState>();

  /**
   * @param runProbe - renders one URL and returns its text and status (`null` if it failed)
   * @param onNote - told once per origin when fingerprint matching is switched off
   */
  constructor(
    private readonly runProbe: (url: string) => Promise<{ text: string; status: number | null; path: string } | null>,
    private readonly onNote: (note: string) => void,
  ) {}

  /** The probe URL for an origin. */
  static probeUrl(origin: string): string {
    return `${origin}/spacrawl-probe-${Math.random().toString(36).slice(2, 10)}`;
  }

  /** Start the origin's probe if it has none yet. */
  ensure(origin: string): void {
    if (this.origins.has(origin)) return;
    const probe = this.runProbe(SoftNotFound.probeUrl(origin)).then((r) =>
      r ? { shingles: shingles(r.text, r.path), status: r.status } : null,
    );
    this.origins.set(origin, { probe, matching: true, decided: false });
  }

  /**
   * Judge a rendered page.
   * @param url - the page's final URL
   * @param status - its HTTP status (only 200s can be soft 404s)
   * @param title - its title
   * @param h1 - its first heading
   * @param text - its normalized text
   * @param isSeed - the seed of its origin: compared with the probe to decide whether matching works
   */
  async judge(url: string, status: number | null, title: string, h1: string, text: string, isSeed: boolean): Promise<boolean> {
    if (status !== 200) return false;
    const u = new URL(url);
    const st = this.origins.get(u.origin);
    if (!st) {
      // An origin reached without being offered first (a redirect): its probe starts now, for
      // later pages; waiting for it here could hold the only slot the probe needs.
      this.ensure(u.origin);
      return NOT_FOUND_TEXT.test(title) || NOT_FOUND_TEXT.test(h1);
    }
    const probe = await st.probe;
    const mine = shingles(text, u.pathname);
    if (probe && isSeed && !st.decided) {
      st.decided = true;
      if (similarity(mine, probe.shingles) >= SOFT404_SIMILARITY) {
        st.matching = false;
        this.onNote(`${u.origin} renders its start page for unknown routes: soft-404 fingerprint matching is off there (titles and headings still count)`);
        return false;
      }
    }
    if (NOT_FOUND_TEXT.test(title) || NOT_FOUND_TEXT.test(h1)) return true;
    if (!probe || !st.matching || probe.status !== 200) return false;
    return similarity(mine, probe.shingles) >= SOFT404_SIMILARITY;
  }
}
