/**
 * Secrets a login recipe typed (values it read from the environment) and their removal from
 * everything spacrawl writes: records, log lines, error messages, screenshot names and saved
 * storage states. This module imports nothing.
 * @module
 */

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/** Shortest value treated as a secret: shorter ones (`1`, `on`) would blank out ordinary text. */
export const MIN_SECRET_LENGTH = 4;

/**
 * The secrets of one crawl, and their removal from text. A value is removed as written, and in
 * its URL-encoded forms (`encodeURIComponent`, and form encoding with `+` for spaces), since a
 * value typed into a GET form or a link travels that way.
 */
export class Secrets {
  private readonly forms = new Set<string>();
  private pattern: RegExp | null = null;

  /**
   * Add values to remove (values under {@link MIN_SECRET_LENGTH} characters are ignored).
   * @param values - the secrets as typed
   */
  add(values: Iterable<string>): void {
    let changed = false;
    for (const v of values) {
      if (typeof v !== 'string' || v.length < MIN_SECRET_LENGTH) continue;
      for (const form of [v, encodeURIComponent(v), encodeURIComponent(v).replace(/%20/g, '+')]) {
        if (!this.forms.has(form)) {
          this.forms.add(form);
          changed = true;
        }
      }
    }
    if (!changed) return;
    // Longest first, so that a secret containing another is removed whole.
    const sorted = [...this.forms].sort((a, b) => b.length - a.length);
    this.pattern = new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
  }

  /** `true` when there is nothing to remove. */
  get empty(): boolean {
    return this.pattern === null;
  }

  /** `true` when `text` contains a secret. */
  found(text: string): boolean {
    if (!this.pattern) return false;
    this.pattern.lastIndex = 0;
    return this.pattern.test(text);
  }

  /** `text` with every secret replaced by {@link REDACTED}. */
  redact(text: string): string {
    if (!this.pattern) return text;
    this.pattern.lastIndex = 0;
    return text.replace(this.pattern, REDACTED);
  }

  /**
   * Replace secrets in every string of a JSON-like value, in place (objects and arrays are
   * walked; keys are kept). Returns the value (a string is returned redacted).
   */
  redactDeep<T>(value: T): T {
    if (!this.pattern) return value;
    return walk(value, (s) => this.redact(s)) as T;
  }
}

function walk(v: unknown, fix: (s: string) => string): unknown {
  if (typeof v === 'string') return fix(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = walk(v[i], fix);
    return v;
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = walk(o[k], fix);
    return o;
  }
  return v;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
