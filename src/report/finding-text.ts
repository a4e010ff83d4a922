/**
 * The wording of findings that a page raises both as loaded and after click discovery worked a
 * control (`audit.ts`, `page-rules.ts`, `click-errors.ts`): one wording per rule, so the two
 * read alike and a diff compares like with like.
 * @module
 */

/** `console-error`: `"2 console error(s): <the first>"`. @param messages - at least one */
export function consoleErrorsText(messages: readonly string[]): string {
  return `${messages.length} console error(s): ${messages[0]}`;
}

/** `hydration-error`: `"2 hydration mismatch messages: <the first, at most 200 characters>"`. @param entries - at least one */
export function hydrationText(entries: readonly string[]): string {
  return `${entries.length} hydration mismatch message${entries.length === 1 ? '' : 's'}: ${entries[0]!.slice(0, 200)}`;
}

/** `mixed-content`: the `http:` URL an `https:` page requested. */
export function mixedContentText(url: string): string {
  return `http: subresource on an https: page: ${url}`;
}
