/**
 * Include and exclude patterns (globs or `/regex/`) compiled into regular expressions, in a
 * module of its own: the CLI checks `--include`, `--exclude` and `--ignore-url` without loading
 * the scope rules (`scope.ts`, with the Public Suffix List). `scope.ts` re-exports both.
 * @module
 */
import { UsageError } from '../model/errors.js';

/**
 * Thrown by {@link compilePattern} (and so by the `Scope` constructor of `scope.ts`) for a pattern that
 * cannot be compiled. The message is one line, fit for a CLI error.
 *
 * Shape: `{ name: 'InvalidPatternError', code: 'invalid-pattern', pattern: string, message: string }`.
 */
export class InvalidPatternError extends UsageError {
  /** Stable machine-readable code. */
  readonly code = 'invalid-pattern' as const;
  /** The offending pattern, as given. */
  readonly pattern: string;

  /**
   * @param pattern the offending pattern
   * @param reason a short explanation; newlines are folded into spaces
   */
  constructor(pattern: string, reason: string) {
    super(`Invalid pattern ${JSON.stringify(pattern)}: ${reason.replace(/\s*\n\s*/g, ' ')}`);
    this.name = 'InvalidPatternError';
    this.pattern = pattern;
  }
}

// A regular expression literal's flags are JavaScript's (`/docs/api` is a path, not `docs` with flags).
const REGEX_LITERAL = /^\/(.+)\/([dgimsuvy]*)$/s;

/**
 * Compiles an include/exclude pattern into a `RegExp` tested against a whole canonical URL.
 *
 * - `/body/flags` is a JavaScript regular expression, *searched* in the URL (anchor it with `^`/`$`
 *   to match the whole URL). The stateful flags `g` and `y` are dropped so `test()` has no memory.
 * - Anything else is a glob, anchored at both ends (it must match the whole URL):
 *   `**` = any characters (including `/`), `*` = any characters except `/`, `?` = any one
 *   character (so a literal `?` before a query also matches); every other character is literal.
 *   Example: `https://a.test/blog/**` matches everything under `/blog/` (but not `/blog` itself);
 *   `**\/admin/**` matches any URL with an `/admin/` segment.
 * - A glob that starts with `/` is a path: it is matched against what follows the URL's
 *   `scheme://host:port` (the path and the query), on any host: `/admin/**` is everything under
 *   `/admin/`. (As a whole-URL glob it could never match: every canonical URL starts with its scheme.)
 *
 * @param p the pattern
 * @returns a `RegExp` without the `g`/`y` flags
 * @throws {InvalidPatternError} for an empty pattern or a regular expression that does not compile
 */
export function compilePattern(p: string): RegExp {
  if (p === '') throw new InvalidPatternError(p, 'empty pattern');
  const literal = REGEX_LITERAL.exec(p);
  if (literal) {
    const body = literal[1] ?? '';
    const flags = (literal[2] ?? '').replace(/[gy]/g, '');
    try {
      return new RegExp(body, flags);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new InvalidPatternError(p, reason);
    }
  }
  // A path glob starts after the URL's scheme and authority (see above).
  let source = p.startsWith('/') ? '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*' : '^';
  for (let i = 0; i < p.length; i++) {
    const char = p.charAt(i);
    if (char === '*') {
      if (p.charAt(i + 1) === '*') {
        source += '.*';
        while (p.charAt(i + 1) === '*') i++;
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '.';
    } else {
      source += char.replace(/[\\^$.|+()[\]{}/-]/g, '\\$&');
    }
  }
  return new RegExp(`${source}$`, 's');
}
