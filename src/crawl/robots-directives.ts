/**
 * Page-level robots rules: `X-Robots-Tag` response headers and `<meta name="robots">` /
 * `<meta name="AGENT">` tags, as Google's "Robots meta tag, data-nosnippet, and X-Robots-Tag
 * specifications" define them (developers.google.com/search/docs/crawling-indexing/robots-meta-tag):
 * - rules without an agent apply to every crawler; `<meta name="robots">` is that general tag;
 * - `<meta name="otherbot">` and `X-Robots-Tag: otherbot: nofollow` apply to that agent only.
 *   In a header line, `name:` applies to the rules after it, up to the next `name:`
 *   (`X-Robots-Tag: noindex, otherbot: nofollow`: `noindex` for all, `nofollow` for otherbot);
 * - agent names, tag names, header names and rules are case-insensitive;
 * - general and specific rules combine, and where they conflict the more restrictive one
 *   applies (`index` or `all` never undoes a `noindex`);
 * - `none` is `noindex, nofollow`; `all` (no restriction), `index` and `follow` restrict nothing;
 * - `unavailable_after: DATE` (RFC 822, RFC 850 or ISO 8601) is a `noindex` once the date has
 *   passed, and is ignored when the date cannot be read.
 * @module
 */

/** A `<meta name content>` tag of the page, as read from the DOM. */
export interface MetaTag {
  /** The `name` attribute (any case). */
  name: string;
  /** The `content` attribute ('' when absent). */
  content: string;
}

/** What the page's robots rules ask of one crawler. */
export interface RobotsRules {
  /** The page is not to be indexed (`noindex`, `none`, or a passed `unavailable_after`). */
  noindex: boolean;
  /** The page's links are not to be followed (`nofollow`, `none`). */
  nofollow: boolean;
}

/** Where the page's robots rules come from. */
export interface RobotsSources {
  /** Every `X-Robots-Tag` header line of the main document, as sent (one entry per line; a line may be comma-joined). */
  headers: readonly string[];
  /** The page's `<meta name>` tags; only `robots` and the crawler's own token are read. */
  metas: readonly MetaTag[];
}

/** Rules that carry a value after a colon (`max-snippet: 20`): not agent names. */
const VALUED = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

/** A user-agent product token (RFC 9309 §2.2.1 allows letters, `_` and `-`; dots and digits occur in practice). */
const AGENT = /^[a-z0-9_.-]+$/;

const WEEKDAY = /^(mon|tue|wed|thu|fri|sat|sun)[a-z]*$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;
const MONTH = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/;

/** One rule and the agent it is addressed to (`null`: every crawler). */
export interface RobotsRule {
  agent: string | null;
  /** Lowercased rule name (`noindex`, `unavailable_after` …). */
  name: string;
  /** For valued rules, the text after the colon (trimmed); '' otherwise. */
  value: string;
}

/**
 * The instant an `unavailable_after` value names (ms since epoch), or `null` when it is not a
 * date in one of the formats Google accepts (RFC 822, RFC 850, ISO 8601). JavaScript's
 * `Date.parse` reads far more than that ("garbage 2" is a date to it), so the value must look
 * like one first: an ISO date, or a month name with a day and a year.
 */
export function parseUnavailableAfter(value: string): number | null {
  const v = value.trim().toLowerCase();
  if (!ISO_DATE.test(v) && !(MONTH.test(v) && /\d/.test(v))) return null;
  const t = Date.parse(value.trim());
  return Number.isFinite(t) ? t : null;
}

/**
 * Split one header line or meta content into rules.
 * @param text - a comma-separated list of rules
 * @param agentPrefixes - `true` for `X-Robots-Tag` (where `name:` addresses an agent); a meta
 *   tag's content has no agent prefixes (its `name` attribute is the agent), so an unknown
 *   `x: y` there is ignored
 */
export function splitRules(text: string, agentPrefixes: boolean): RobotsRule[] {
  const out: RobotsRule[] = [];
  const parts = text.split(',');
  let agent: string | null = null;
  for (let i = 0; i < parts.length; i++) {
    let t = parts[i]!.trim().toLowerCase();
    if (!t) continue;
    let colon = t.indexOf(':');
    if (colon > 0 && !VALUED.has(t.slice(0, colon).trim())) {
      const name = t.slice(0, colon).trim();
      if (!agentPrefixes || !AGENT.test(name)) continue;
      agent = name;
      t = t.slice(colon + 1).trim();
      if (!t) continue;
      colon = t.indexOf(':');
    }
    if (colon > 0) {
      const name = t.slice(0, colon).trim();
      if (!VALUED.has(name)) continue;
      let value = t.slice(colon + 1).trim();
      // RFC 822 and RFC 850 dates start with "Friday, …": the comma is part of the date.
      if (name === 'unavailable_after' && WEEKDAY.test(value) && i + 1 < parts.length) value = `${value}, ${parts[++i]!.trim()}`;
      out.push({ agent, name, value });
      continue;
    }
    if (/^[a-z-]+$/.test(t)) out.push({ agent, name: t, value: '' });
  }
  return out;
}

/**
 * The robots rules that apply to the crawler named `agent`: the general ones (no agent,
 * `<meta name="robots">`) combined with the ones addressed to `agent`; rules for other agents
 * are left out.
 * @param agent - the crawler's product token (`--robots-agent`), matched case-insensitively
 * @param sources - the page's `X-Robots-Tag` lines and `<meta name>` tags
 * @param now - the time `unavailable_after` is compared with (ms since epoch)
 */
export function robotsRulesFor(agent: string, sources: RobotsSources, now: number = Date.now()): RobotsRules {
  const me = agent.trim().toLowerCase();
  const rules: RobotsRule[] = [];
  for (const line of sources.headers) rules.push(...splitRules(line, true));
  for (const m of sources.metas) {
    const name = m.name.trim().toLowerCase();
    if (name === 'robots') rules.push(...splitRules(m.content, false));
    else if (name === me) rules.push(...splitRules(m.content, false).map((r) => ({ ...r, agent: me })));
  }
  const result: RobotsRules = { noindex: false, nofollow: false };
  for (const r of rules) {
    if (r.agent !== null && r.agent !== me) continue;
    if (r.name === 'none' || r.name === 'noindex') result.noindex = true;
    if (r.name === 'none' || r.name === 'nofollow') result.nofollow = true;
    if (r.name === 'unavailable_after') {
      const at = parseUnavailableAfter(r.value);
      if (at !== null && at <= now) result.noindex = true;
    }
  }
  return result;
}
