/**
 * Scope: which URLs may be crawled (see `DESIGN.md`, "scope").
 *
 * A URL is in scope when, in this order:
 *
 * 1. its scheme is `http:` or `https:` (the only schemes a crawl navigates; RFC 9110 §4.2);
 * 2. it carries no user name or password (RFC 9110 §4.2.4: userinfo is deprecated in http(s)
 *    URIs; WHATWG URL flags it as a validation error; crawling with credentials leaks them);
 * 3. its site matches the site of at least one root (a seed, or a URL given to
 *    {@link Scope.addRoot}) under the scope's {@link ScopeMode};
 * 4. it matches no `exclude` pattern (exclude wins);
 * 5. if `include` patterns are given, it matches one of them, or it is a root itself.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type * as Tldts from 'tldts';
import { InvalidUrlError, normalize, type NormalizeOptions } from './normalize.js';
import { compilePattern } from './pattern.js';
import { StringMemo } from '../util/memo.js';

export { compilePattern, InvalidPatternError } from './pattern.js';

/**
 * tldts's `getDomain`, loaded by `require()`: imported as an ES module, its CommonJS build (220 KB)
 * is first scanned for its exports by Node's lexer, ~35 ms of every crawl's start against ~9.
 */
const { getDomain } = createRequire(import.meta.url)('tldts') as typeof Tldts;

/**
 * How far a root's site extends.
 *
 * - `'host'` (default): the same hostname and the same effective port. `http:` on 80 and `https:`
 *   on 443 (each scheme's default port, RFC 9110 §4.2.1/§4.2.2) count as one site, so
 *   `http://a.test/` and `https://a.test:443/` match, while `http://127.0.0.1:8080` and
 *   `http://127.0.0.1:8081` do not (an explicit port is compared as a number, whatever the scheme).
 * - `'subdomains'`: the root's hostname and every hostname ending in `.` + that hostname
 *   (`docs.a.test` for root `a.test`, but not `a.test` for root `www.a.test`); ports as for `'host'`.
 * - `'domain'`: every hostname with the same registrable domain ("eTLD+1") per the Public Suffix
 *   List, private suffixes honoured (`a.github.io` ≠ `b.github.io`; `shop.example.co.uk` ≡
 *   `blog.example.co.uk`); ports as for `'host'`.
 *
 * For IP addresses and `localhost`, and for a root whose hostname has no registrable domain
 * (a public suffix itself, or a single label), `'subdomains'` and `'domain'` fall back to `'host'`.
 */
export type ScopeMode = 'host' | 'subdomains' | 'domain';

/**
 * Why a URL is out of scope, as returned by {@link Scope.reason}:
 *
 * - `'scheme'`: not an `http:`/`https:` URL (`mailto:`, `javascript:`, …), or not a parsable URL;
 * - `'credentials'`: the URL has a user name or password;
 * - `'host'`: its site is not the site of any root;
 * - `'excluded'`: it matches an `exclude` pattern;
 * - `'not-included'`: `include` patterns are given and it matches none (and is not a root).
 */
export type ScopeRejection = 'scheme' | 'credentials' | 'host' | 'excluded' | 'not-included';

/** Options for {@link Scope}. */
export interface ScopeOptions {
  /**
   * How far each root's site extends; see {@link ScopeMode}.
   * @default 'host'
   */
  mode?: ScopeMode;
  /**
   * Patterns (see {@link compilePattern}) of which a URL must match at least one. The roots
   * (seeds and {@link Scope.addRoot} URLs) are always allowed by `include`. Empty or absent: no
   * include filter.
   * @default []
   */
  include?: readonly string[];
  /**
   * Patterns (see {@link compilePattern}) a URL must not match. Exclude wins over include and
   * applies to the roots too.
   * @default []
   */
  exclude?: readonly string[];
  /**
   * The options the crawler gives {@link normalize} for its frontier keys, so patterns are matched
   * against exactly the canonical string the crawler uses (matters for kept fragments or
   * parameters).
   * @default {} (normalize's defaults)
   */
  normalize?: NormalizeOptions;
}

/** One root's site, ready for matching. `port` is `''` for the scheme's default port. */
interface SiteRule {
  kind: ScopeMode;
  /** hostname (`'host'`, `'subdomains'`) or registrable domain (`'domain'`) */
  name: string;
  port: string;
}

/** True for IP literals and `localhost`, where only the `'host'` mode makes sense. */
function isHostOnly(hostname: string): boolean {
  return hostname === 'localhost' || hostname.startsWith('[') || isIP(hostname) !== 0;
}

/** Registrable domain with private PSL suffixes honoured, or `null`. */
function registrableDomain(hostname: string): string | null {
  if (isHostOnly(hostname)) return null;
  return getDomain(hostname, { allowPrivateDomains: true });
}

/**
 * Decides which URLs may be crawled: http(s) only, no credentials, same site as a root under the
 * {@link ScopeMode}, then `exclude`/`include` patterns. See the module comment for the order.
 *
 * ```ts
 * const scope = new Scope(['https://example.com/'], { mode: 'subdomains', exclude: ['**\/logout'] });
 * scope.inScope('https://docs.example.com/x'); // true
 * scope.reason('https://other.test/');         // 'host'
 * ```
 */
export class Scope {
  /** The mode every root is matched with. */
  readonly mode: ScopeMode;
  readonly #rules: SiteRule[] = [];
  readonly #ruleKeys = new Set<string>();
  readonly #rootUrls = new Set<string>();
  readonly #include: RegExp[];
  readonly #exclude: RegExp[];
  readonly #normalizeOptions: NormalizeOptions | undefined;
  /**
   * {@link Scope.reason}'s answers by URL as given, until a root is added (the same links come
   * back on every page of a site: its navigation).
   */
  #reasons = new StringMemo<ScopeRejection | null>();

  /**
   * @param seeds the start URLs (absolute, http or https, no credentials); an empty list gives a
   *   scope that rejects every URL with `'host'` until {@link Scope.addRoot} is called
   * @param options see {@link ScopeOptions}
   * @throws {InvalidUrlError} for a seed that does not parse, is not http(s) or has credentials
   * @throws {InvalidPatternError} for an include/exclude pattern that does not compile
   */
  constructor(seeds: readonly string[], options?: ScopeOptions) {
    this.mode = options?.mode ?? 'host';
    this.#normalizeOptions = options?.normalize;
    this.#include = (options?.include ?? []).map(compilePattern);
    this.#exclude = (options?.exclude ?? []).map(compilePattern);
    for (const seed of seeds) this.addRoot(seed);
  }

  /**
   * Widens the scope with another site root under the same mode, e.g. a seed's final URL after
   * redirects (`http://a.test/` → `https://www.a.test/`). The root URL itself, like a seed, is
   * always allowed by `include` patterns.
   *
   * @param url an absolute http(s) URL without credentials
   * @throws {InvalidUrlError} when `url` does not parse, is not http(s) or has credentials
   */
  addRoot(url: string): void {
    const canonical = normalize(url, this.#normalizeOptions);
    const parsed = new URL(canonical);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new InvalidUrlError(url, 'only http: and https: URLs can be crawled');
    }
    if (parsed.username !== '' || parsed.password !== '') {
      throw new InvalidUrlError(url, 'URLs with a user name or password are not crawled');
    }
    this.#rootUrls.add(canonical);
    const rule = this.#ruleFor(parsed.hostname, parsed.port);
    const key = `${rule.kind} ${rule.name} ${rule.port}`;
    if (!this.#ruleKeys.has(key)) {
      this.#ruleKeys.add(key);
      this.#rules.push(rule);
    }
    this.#reasons = new StringMemo();
  }

  /**
   * @param url a canonical or raw absolute URL (raw URLs are normalized first)
   * @returns `true` if the URL may be crawled; never throws
   */
  inScope(url: string): boolean {
    return this.reason(url) === null;
  }

  /**
   * Why a URL may not be crawled; checks run in the order of {@link ScopeRejection}.
   *
   * @param url a canonical or raw absolute URL (raw URLs are normalized first; patterns are
   *   matched against the canonical string)
   * @returns the first failing check, or `null` when the URL is in scope; never throws (an
   *   unparsable URL gives `'scheme'`)
   */
  reason(url: string): ScopeRejection | null {
    return this.#reasons.get(url, (u) => this.#reasonUncached(u));
  }

  /** {@link Scope.reason} without the memo. */
  #reasonUncached(url: string): ScopeRejection | null {
    let canonical: string;
    try {
      canonical = normalize(url, this.#normalizeOptions);
    } catch {
      return 'scheme';
    }
    const parsed = new URL(canonical);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'scheme';
    if (parsed.username !== '' || parsed.password !== '') return 'credentials';
    if (!this.#rules.some((rule) => this.#matches(rule, parsed.hostname, parsed.port))) {
      return 'host';
    }
    if (this.#exclude.some((re) => re.test(canonical))) return 'excluded';
    if (
      this.#include.length > 0 &&
      !this.#rootUrls.has(canonical) &&
      !this.#include.some((re) => re.test(canonical))
    ) {
      return 'not-included';
    }
    return null;
  }

  /**
   * The site keys, for display, in the order the roots were added, without duplicates:
   * `a.test` or `a.test:8080` for a host; `*.a.test` for a host and its subdomains (`'subdomains'`)
   * or for every host of a registrable domain (`'domain'`); `*.` includes the bare name.
   */
  roots(): string[] {
    return this.#rules.map((rule) => {
      const name = rule.kind === 'host' ? rule.name : `*.${rule.name}`;
      return rule.port === '' ? name : `${name}:${rule.port}`;
    });
  }

  #ruleFor(hostname: string, port: string): SiteRule {
    if (this.mode === 'host' || isHostOnly(hostname)) return { kind: 'host', name: hostname, port };
    if (this.mode === 'subdomains') return { kind: 'subdomains', name: hostname, port };
    const domain = registrableDomain(hostname);
    if (domain === null) return { kind: 'host', name: hostname, port };
    return { kind: 'domain', name: domain, port };
  }

  #matches(rule: SiteRule, hostname: string, port: string): boolean {
    if (rule.port !== port) return false;
    switch (rule.kind) {
      case 'host':
        return hostname === rule.name;
      case 'subdomains':
        return hostname === rule.name || hostname.endsWith(`.${rule.name}`);
      case 'domain':
        return registrableDomain(hostname) === rule.name;
    }
  }
}
