/**
 * The hydration-mismatch messages of the frameworks that hydrate server-rendered HTML, as
 * their sources word them, so that a console line or an uncaught error can be told to be one.
 * Each pattern names its source:
 * - React (`scripts/error-codes/codes.json` of facebook/react, and the development warnings of
 *   `react-dom` 16–18): error 418 "Hydration failed because the server rendered HTML|text didn't
 *   match the client" (React 19) or "… the initial UI does not match what was rendered on the
 *   server" (React 18), 422/423 "There was an error while hydrating …", 425 "Text content does
 *   not match server-rendered HTML", their minified forms (`Minified React error #418`,
 *   `react.dev/errors/418`), React 19's "A tree hydrated but some attributes of the server
 *   rendered HTML didn't match the client properties", and the React 16–18 warnings "Text
 *   content did not match. Server: …", "Expected server HTML to contain a matching <…>", "Did not
 *   expect server HTML to contain a <…>", "Prop `…` did not match. Server: …", "An error
 *   occurred during hydration. The server HTML was replaced with client content".
 * - Vue 3 (`packages/runtime-core/src/hydration.ts` of vuejs/core): the production
 *   `console.error("Hydration completed but contains mismatches.")` and the `[Vue warn]`
 *   details "Hydration node|text|text content|children|attribute|class|style mismatch"; Vue 2's
 *   "The client-side rendered virtual DOM tree is not matching server-rendered content".
 * - Svelte 5 (`hydration_mismatch`, `hydration_attribute_changed`, `hydration_html_changed`
 *   warnings and the `hydration_failed` error, all with their `svelte.dev/e/…` link, in
 *   development and production).
 * - Angular (`packages/core/src/errors.ts` of angular/angular: NG0500
 *   HYDRATION_NODE_MISMATCH "During hydration Angular expected …", NG0501
 *   HYDRATION_MISSING_SIBLINGS, NG0502 HYDRATION_MISSING_NODE, NG0503
 *   UNSUPPORTED_PROJECTION_DOM_NODES, NG0507 MISSING_SSR_CONTENT_INTEGRITY_MARKER). NG0504–NG0506
 *   are set-up warnings, not mismatches.
 * @module
 */

/** A framework whose hydration messages are recognized. */
export type HydratingFramework = 'React' | 'Vue' | 'Svelte' | 'Angular';

/**
 * The recognized messages, per framework (see the module comment for their sources), tried in
 * order: Svelte first, since its development warning repeats React 18's sentence.
 */
export const HYDRATION_PATTERNS: readonly { framework: HydratingFramework; pattern: RegExp }[] = [
  { framework: 'Svelte', pattern: /svelte\.dev\/e\/hydration_(?:mismatch|attribute_changed|html_changed|failed)\b|\[svelte\] hydration_mismatch/ },
  { framework: 'React', pattern: /Hydration failed because the (?:server rendered (?:HTML|text) didn't match the client|initial UI does not match)/ },
  { framework: 'React', pattern: /A tree hydrated but some attributes of the server rendered HTML didn't match the client/ },
  { framework: 'React', pattern: /There was an error while hydrating|Text content does not match server-rendered HTML/ },
  { framework: 'React', pattern: /(?:Minified React error #|react\.dev\/errors\/|error-decoder\.html\?invariant=)(?:418|422|423|425)\b/ },
  {
    framework: 'React',
    pattern:
      /Text content did not match\. Server:|Expected server HTML to contain a matching <|Did not expect server HTML to contain a <|Prop `[^`]*` did not match\. Server:|An error occurred during hydration\. The server HTML was replaced/,
  },
  { framework: 'Vue', pattern: /Hydration completed but contains mismatches|Hydration (?:node|text|text content|children|attribute|class|style) mismatch/ },
  { framework: 'Vue', pattern: /client-side rendered virtual DOM tree is not matching server-rendered content/ },
  { framework: 'Angular', pattern: /\bNG0(?:500|501|502|503|507)\b/ },
];

/** Most hydration messages kept per page. */
export const MAX_HYDRATION_MESSAGES = 10;

/** A cheap first test: every recognized message contains one of these. */
const HINT = /ydrat|React error|react\.dev\/errors|invariant=|did not match|server HTML|server-rendered|NG050/;

/**
 * The framework whose hydration-mismatch message `text` is, or `null` for any other text.
 * @param text - a console message or an uncaught error's message
 */
export function hydrationFramework(text: string): HydratingFramework | null {
  if (!HINT.test(text)) return null;
  for (const { framework, pattern } of HYDRATION_PATTERNS) if (pattern.test(text)) return framework;
  return null;
}

/**
 * `text` as a record entry when it is a hydration-mismatch message: `React: <first line>`
 * (the first non-empty line, without a leading `%c` style marker, at most 300 characters), else
 * `null`.
 */
export function hydrationEntry(text: string): string | null {
  const framework = hydrationFramework(text);
  if (!framework) return null;
  // Svelte's development warning puts its name on the first line and the sentence on the next.
  const lines = text.split('\n').map((l) => l.replace(/%c/g, '').trim()).filter(Boolean);
  const first = lines.find((l) => !/^\[svelte\] hydration_/.test(l)) ?? lines[0] ?? text;
  return `${framework}: ${first}`.slice(0, 300);
}
