/**
 * "Different URLs with similar text" (DUST): learn URL parameters that do not change what a page
 * renders, and stop visiting further variants.
 *
 * Every rendered page's content hash is observed. When varying one parameter — a query
 * parameter, or a parameter of a hash route's own query (`#/page?id=heading`) — on the same
 * path has produced identical content {@link DUST_LEARN_AFTER} times, the parameter is learned
 * as irrelevant on that origin. From then on a URL that differs from an already known URL only
 * in learned parameters is a duplicate of it (`skipped: "duplicate"`, `duplicateOf`).
 * @module
 */

import { isHashRoute } from '../url/normalize.js';

/** Identical renderings needed before a parameter is learned as irrelevant. */
export const DUST_LEARN_AFTER = 3;

interface Parts {
  origin: string;
  /** Everything but the parameters: origin, path and hash-route path. */
  base: string;
  /** Parameters by name: `q:name` for the query, `h:name` for the hash route's query. */
  params: Map<string, string>;
}

/**
 * The `name=value` pairs of a query as written (percent-escapes and `+` kept): two URLs whose
 * canonical forms differ never share a key while no parameter is learned (decoded, `%E9` and
 * `%FC` in a Latin-1 query both read U+FFFD, and `a+b` reads as `a%20b`).
 */
function rawPairs(query: string): [string, string][] {
  const out: [string, string][] = [];
  for (const part of query.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    out.push(eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)]);
  }
  return out;
}

function parse(url: string): Parts | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const params = new Map<string, string>();
  for (const [k, v] of rawPairs(u.search.slice(1))) params.set(`q:${k}`, v);
  let hashPath = '';
  if (isHashRoute(u.hash)) {
    const h = u.hash.slice(1);
    const qi = h.indexOf('?');
    hashPath = qi >= 0 ? h.slice(0, qi) : h;
    if (qi >= 0) for (const [k, v] of rawPairs(h.slice(qi + 1))) params.set(`h:${k}`, v);
  }
  return { origin: u.origin, base: `${u.origin}${u.pathname}${hashPath ? `#${hashPath}` : ''}`, params };
}

/**
 * The key of `parts` with the parameters in `drop` left out: the base (origin, path, `#` and the
 * hash route's path when there is one), then `?` and the kept parameters when any are kept. A
 * path holds no `#` or `?`, a hash-route path no `?`, so two different keys never read the same;
 * and a canonical URL without parameters is its own key.
 */
function keyWithout(p: Parts, drop: (name: string) => boolean): string {
  const kept = [...p.params].filter(([k]) => !drop(k)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return kept.length ? `${p.base}?${kept.map(([k, v]) => `${k}=${v}`).join('&')}` : p.base;
}

/** Learns irrelevant parameters per origin and answers "is this URL a duplicate?". */
export class DustLearner {
  /** origin → learned parameter names (`q:x`, `h:x`). */
  private readonly learned = new Map<string, Set<string>>();
  /** `origin|param|key-without-param` → content hash and how many variants matched it. */
  private readonly groups = new Map<string, { hash: string; count: number }>();
  /** key without learned params → first URL known with that key. */
  private readonly representatives = new Map<string, string>();

  /** Learned parameters, as `origin: name, name` lines, for the summary. */
  rules(): string[] {
    return [...this.learned].map(([o, names]) => `${o}: ${[...names].map((n) => (n.startsWith('h:') ? `#?${n.slice(2)}` : n.slice(2))).join(', ')}`);
  }

  /**
   * Observe a rendered page.
   * @param url - canonical URL that was visited
   * @param hash - content hash of its rendering
   * @returns parameter names learned by this observation (empty mostly)
   */
  observe(url: string, hash: string): string[] {
    const p = parse(url);
    if (!p || p.params.size === 0) return [];
    const fresh: string[] = [];
    for (const name of p.params.keys()) {
      if (this.learned.get(p.origin)?.has(name)) continue;
      const g = `${p.origin}|${name}|${keyWithout(p, (k) => k === name)}`;
      const cur = this.groups.get(g);
      if (!cur || cur.hash !== hash) {
        this.groups.set(g, { hash, count: 1 });
        continue;
      }
      cur.count++;
      if (cur.count >= DUST_LEARN_AFTER) {
        let set = this.learned.get(p.origin);
        if (!set) {
          set = new Set();
          this.learned.set(p.origin, set);
        }
        set.add(name);
        fresh.push(name);
        // This URL stands for its family from now on (the bare `#/page` included).
        const reduced = keyWithout(p, (k) => set.has(k));
        if (!this.representatives.has(reduced)) this.representatives.set(reduced, url);
      }
    }
    return fresh;
  }

  /**
   * Is `url` a variant of a URL already known, differing only in learned parameters?
   * The first URL of each such family is remembered and returned for the later ones.
   * @returns the canonical URL it duplicates, or `null`
   */
  duplicateOf(url: string): string | null {
    const p = parse(url);
    if (!p) return null;
    const names = this.learned.get(p.origin);
    const key = keyWithout(p, (k) => names?.has(k) ?? false);
    const rep = this.representatives.get(key);
    if (rep === undefined) {
      // The URL's own string when it is its key (most URLs): one string per URL, not two.
      this.representatives.set(key === url ? url : key, url);
      return null;
    }
    return rep === url ? null : rep;
  }
}
