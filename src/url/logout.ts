/**
 * What a sign-out looks like: URLs whose path or query says log out / sign out / log off, and
 * link or button texts that say so. While a crawl is logged in, such URLs are never requested
 * (a crawler that follows "Sign out" ends its own session): the link pipeline records them as
 * `skipped: "logout"`, click discovery never clicks such names, and the browser refuses any
 * other request to such a URL (a redirect, a form, a script's `fetch`).
 * @module
 */

/**
 * The sign-out words as one regex source: `log out`, `logout`, `log-out`, `log_out`,
 * `logoff`, `log off`, `sign out`, `signout`, `sign_out`, `sign-off` …, as whole words (so
 * `catalog-output` and `blog out` are not sign-outs).
 */
export const LOGOUT_WORDS = '(?<![a-z])(?:log|sign)[ _+-]?(?:out|off)(?![a-z])';

const WORDS = new RegExp(LOGOUT_WORDS, 'i');

/**
 * `true` when a URL's path or query says log out / sign out / log off (`/logout`,
 * `/users/sign_out`, `/auth/log-off`, `/wp-login.php?action=logout`). The path is
 * percent-decoded first (`/log%20out`). Host names are not looked at.
 * @param url - an absolute URL; one that does not parse is not a sign-out
 */
export function isLogoutUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const tail = `${u.pathname}${u.search}`;
  let decoded = tail;
  try {
    decoded = decodeURIComponent(tail);
  } catch {
    // a malformed escape is matched as written
  }
  return WORDS.test(decoded) || WORDS.test(tail);
}

/** `true` when a link's (or button's) text says log out / sign out / log off ("Sign out", "Log off alice"). */
export function isLogoutText(text: string): boolean {
  return WORDS.test(text);
}

/**
 * Chrome DevTools Protocol `Fetch` URL patterns (`*` wildcards, case-sensitive) that every
 * sign-out URL matches: a coarse prefilter, so that only candidate requests are paused and
 * checked with {@link isLogoutUrl}. Lower case, capitalized and upper case spellings with each
 * separator, percent-encoded space included.
 */
export function logoutUrlPatterns(): string[] {
  const out = new Set<string>();
  for (const [a, b] of [
    ['og', 'out'],
    ['og', 'off'],
    ['ign', 'out'],
    ['ign', 'off'],
  ] as const) {
    for (const sep of ['', '-', '_', '+', '%20', '%2D', '%5F']) {
      for (const word of [`${a}${sep}${b}`, `${a}${sep}${cap(b)}`, `${a}${sep}${b}`.toUpperCase()]) out.add(`*${word}*`);
    }
  }
  return [...out];
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
