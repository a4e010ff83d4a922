import type { AuditIssue, Severity } from '../audit.js';
import type { ReportSink } from '../input.js';

/** Helpers every report format may use. Formats import this module, never each other nor the registry. */

/** Sort rank of a severity: errors first. */
export const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, notice: 2 };

/** Characters XML 1.0 cannot carry (controls, lone surrogates, U+FFFE/U+FFFF). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text made safe for XML 1.0: every character it cannot carry becomes U+FFFD. (Escaping is the builder's job.) */
export function xmlSafe(s: string): string {
  return s.replace(NOT_XML, '\uFFFD');
}

/** `12 ms`, `3.4 s`, `2 min 05 s`, `1 h 02 min`. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const total = Math.round(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  return h ? `${h} h ${String(m).padStart(2, '0')} min` : `${m} min ${String(sec).padStart(2, '0')} s`;
}

/** The `--fail-on` setting in words. */
export function describeFailOn(failOn: readonly string[]): string {
  return failOn.length === 0 || failOn.includes('none') ? 'none' : failOn.join(', ');
}

/** The audit's issues grouped by the URL they are about, each list in audit order. */
export function issuesByUrl(issues: readonly AuditIssue[]): Map<string, AuditIssue[]> {
  const byUrl = new Map<string, AuditIssue[]>();
  for (const i of issues) {
    const list = byUrl.get(i.url);
    if (list) list.push(i);
    else byUrl.set(i.url, [i]);
  }
  return byUrl;
}

/** A sink that collects the text, for the `render…` functions that return a string. */
export function stringSink(): ReportSink & { text(): string } {
  const parts: string[] = [];
  return {
    write: (t) => void parts.push(t),
    text: () => parts.join(''),
  };
}

/**
 * `value` as `JSON.stringify(value, null, 2)` prints it when nested `depth` levels deep in a
 * larger document: every line after the first indented by `2 * depth` more spaces. (JSON text
 * has no raw newline inside strings, so re-indenting lines is exact.)
 */
export function nestedJson(value: unknown, depth: number): string {
  const text = JSON.stringify(value, null, 2);
  return depth === 0 ? text : text.replace(/\n/g, `\n${'  '.repeat(depth)}`);
}

/** What {@link xmlBuilder} builds with: fast-xml-parser's `XMLBuilder`. */
export interface XmlBuilder {
  build(doc: unknown): string;
}

/**
 * One element of a list, as the builder prints it inside `wrappers` (the keys from the root down
 * to the list's parent): built inside empty wrapper elements, whose lines are then cut off, so
 * that it has exactly the indentation and escaping it has in the whole document.
 */
export function xmlItem(builder: XmlBuilder, wrappers: readonly string[], key: string, item: unknown): string {
  let doc: unknown = { [key]: item };
  for (const w of [...wrappers].reverse()) doc = { [w]: doc };
  const lines = builder.build(doc).split('\n');
  return `${lines.slice(wrappers.length, lines.length - 1 - wrappers.length).join('\n')}\n`;
}

/**
 * The text of a document before and after its one list, so that the list's elements can be
 * written one at a time in between: `doc` is the whole document with a single `sentinel` element
 * in the list (at the path `wrappers`, key `key`).
 * @throws Error when the sentinel cannot be found (a builder that prints it differently)
 */
export function xmlAround(builder: XmlBuilder, doc: unknown, wrappers: readonly string[], key: string, sentinel: unknown): { head: string; tail: string } {
  const full = builder.build(doc);
  const one = xmlItem(builder, wrappers, key, sentinel);
  const at = full.indexOf(one);
  if (at < 0) throw new Error('xmlAround: the list element was not found in the document');
  return { head: full.slice(0, at), tail: full.slice(at + one.length) };
}
