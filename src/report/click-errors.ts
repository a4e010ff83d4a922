/**
 * Findings of what a page raised while click discovery worked it (`ClickDiscovery.errors`): one
 * `js-error` per uncaught exception, one `failed-request` per request, one `mixed-content` per
 * `http:` request, one `console-error` and one `hydration-error` per control, each with the control
 * as its subject, so that a diff tells them from the page's own errors as loaded and compares
 * them only where both crawls clicked that control on the page (see `diff/findings.ts`).
 * @module
 */
import type { PageRecord } from '../model/record.js';
import type { ClickError } from '../model/observation.js';
import { consoleErrorsText, hydrationText, mixedContentText } from './finding-text.js';

/** How every click subject starts (see {@link clickSubject}). */
const PREFIX = 'after working ';

/**
 * The subject of a finding raised after working a control, from its click-memory signature
 * (`kind|name|landmark`, `hover:` before a hovered one's kind; see `scanClickables`): e.g.
 * `after working "Swift" (menuitemcheckbox in menu)`. The kind and the landmark are role and tag
 * names (no `|`); whatever lies between them is the name.
 * @param signature - a `ClickDiscovery.clicked` entry
 */
export function clickSubject(signature: string): string {
  const first = signature.indexOf('|');
  const last = signature.lastIndexOf('|');
  if (first < 0 || last === first) return `${PREFIX}${signature}`;
  const kind = signature.slice(0, first).replace(/^hover:/, 'hovered ');
  return `${PREFIX}"${signature.slice(first + 1, last)}" (${kind} in ${signature.slice(last + 1) || 'page'})`;
}

/** `true` for a subject made by {@link clickSubject}. */
export function isClickSubject(subject: string | undefined): boolean {
  return subject !== undefined && subject.startsWith(PREFIX);
}

/**
 * The subjects of the controls `r`'s click discovery worked (see {@link clickSubject}), or `null`
 * when its record does not say (written by a spacrawl version before `ClickDiscovery.clicked`).
 */
export function clickedSubjects(r: Pick<PageRecord, 'clickDiscovery'>): Set<string> | null {
  const clicked: unknown = r.clickDiscovery?.clicked;
  if (r.clickDiscovery && !Array.isArray(clicked)) return null;
  // A record read back from a file may have been edited: what is not a signature is left out.
  return new Set(((clicked ?? []) as unknown[]).filter((c): c is string => typeof c === 'string').map(clickSubject));
}

/** One issue of {@link clickErrorIssues}: the rule, its message and its click subject. */
export interface ClickErrorIssue {
  rule: 'js-error' | 'console-error' | 'failed-request' | 'hydration-error' | 'mixed-content';
  message: string;
  subject: string;
}

/** The kinds of `ClickError` a record may hold (a record read back from a file may have been edited). */
const KINDS: ReadonlySet<string> = new Set<ClickError['kind']>(['page', 'console', 'request', 'hydration', 'mixed-content']);

/**
 * The issues of `r`'s click-raised errors, worded as the page's own of the same rule (`audit.ts`):
 * each uncaught exception a `js-error`, each failed request a `failed-request`, each `http:`
 * request of an `https:` page a `mixed-content`, each control's console errors one
 * `console-error` ("2 console error(s): <the first>") and its hydration messages one
 * `hydration-error`, in the order raised.
 */
export function clickErrorIssues(r: Pick<PageRecord, 'clickDiscovery'>): ClickErrorIssue[] {
  const errors: unknown = r.clickDiscovery?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return [];
  const out: ClickErrorIssue[] = [];
  const consoles = new Map<string, string[]>();
  const hydrations = new Map<string, string[]>();
  const per = (m: Map<string, string[]>, e: ClickError): void => void m.set(e.control, [...(m.get(e.control) ?? []), e.message]);
  // A record read back from a file may have been edited: entries of another shape are left out.
  const valid = (e: unknown): e is ClickError =>
    typeof e === 'object' && e !== null && typeof (e as ClickError).control === 'string' && typeof (e as ClickError).message === 'string' && KINDS.has((e as ClickError).kind);
  for (const e of (errors as unknown[]).filter(valid)) {
    const subject = clickSubject(e.control);
    if (e.kind === 'page') out.push({ rule: 'js-error', message: e.message, subject });
    else if (e.kind === 'request') out.push({ rule: 'failed-request', message: e.message, subject });
    else if (e.kind === 'mixed-content') out.push({ rule: 'mixed-content', message: mixedContentText(e.message), subject });
    else per(e.kind === 'console' ? consoles : hydrations, e);
  }
  for (const [control, messages] of consoles) out.push({ rule: 'console-error', message: consoleErrorsText(messages), subject: clickSubject(control) });
  for (const [control, messages] of hydrations) out.push({ rule: 'hydration-error', message: hydrationText(messages), subject: clickSubject(control) });
  return out;
}
