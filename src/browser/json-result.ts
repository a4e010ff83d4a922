/**
 * Page reads whose result comes back as one JSON string. Playwright carries an evaluation's
 * result value by value: its serializer walks the object in the page, and its protocol checks
 * every value on both sides of the connection (`tObject`/`tArray` validators). For a page's DOM
 * reading (its links, text and headings) that was the crawler process's largest single cost
 * (~0.5 s of ~4 CPU-s on the 67 pages of the TypeDoc site; profiled with `node --cpu-prof`);
 * `JSON.stringify` in the page and `JSON.parse` here cost a fraction of it. Only for results that
 * are JSON: no `undefined` in arrays, no `NaN`, `Infinity`, dates, maps or DOM handles (a field
 * that is `undefined` is left out, as an optional field), and whose values are objects (a string
 * result would be taken for JSON text).
 *
 * A page can change what `JSON.stringify` writes: Prototype.js (1.6 and older) gives arrays a
 * `toJSON` that turns them into strings, and a page may replace `JSON.stringify` itself. When a
 * `toJSON` is set on a prototype of the values read, `JSON.stringify` is not the browser's, or a
 * global the check reads was replaced (`String`, `Function.prototype.toString`), the value comes
 * back as Playwright (or CDP) carries it.
 * @module
 */
import type { CDPSession, Frame, Page } from 'playwright';

/**
 * The expression `body` (JavaScript that evaluates to a JSON-able value), turned into one that
 * evaluates to its JSON text, for {@link evaluateExpressionJson}.
 */
export function asJsonExpression(body: string): string {
  return `((v) => {
  let trusted = false;
  try {
    const J = typeof JSON === 'object' && JSON ? JSON.stringify : null;
    const own = typeof J === 'function' && Function.prototype.toString.call(J).includes('[native code]');
    trusted = own && [Array, Object, String, Number, Boolean].every((C) => !('toJSON' in C.prototype));
  } catch {
    // A page that replaced one of those globals: its JSON is not trusted either.
  }
  return trusted ? JSON.stringify(v) : v;
})(${body})`;
}

/**
 * Evaluate `jsonExpression` (made by {@link asJsonExpression}) in `target` and parse its result
 * (or take it as it came, when the page's JSON could not be trusted).
 * @throws what `evaluate` throws (the page went away, the document was replaced, a script error)
 */
export async function evaluateExpressionJson<T>(target: Page | Frame, jsonExpression: string): Promise<T> {
  return fromJson<T>(await target.evaluate(jsonExpression));
}

/** What an `asJsonExpression` evaluated to: its JSON text parsed, or the value as it came (the page's JSON was not trusted). */
export function fromJson<T>(r: unknown): T {
  return (typeof r === 'string' ? JSON.parse(r) : r) as T;
}

/**
 * Run the page function `fn` (self-contained, as for `page.evaluate`) with `arg` (JSON-able) in
 * `target`, its result carried as JSON (see the module comment).
 * @throws what `evaluate` throws
 */
export async function evaluateJson<T, A = undefined>(target: Page | Frame, fn: (arg: A) => T, arg?: A): Promise<T> {
  return evaluateExpressionJson<T>(target, asJsonExpression(`(${fn.toString()})(${arg === undefined ? '' : JSON.stringify(arg)})`));
}

/** The part of CDP's `Runtime.evaluate` answer read here. */
interface EvaluateAnswer {
  result: { value?: unknown };
  exceptionDetails?: { text: string; exception?: { description?: string } };
}

/**
 * Evaluate `expression` in the main world of the tab's current document through the tab's own
 * CDP session (`Runtime.evaluate`, by value), not through Playwright's `evaluate`: no utility
 * script injected into each new document (~13 KB compiled per page), no serializer walking the
 * value in the page, no protocol validators, one message each way. Half the cost of a trivial
 * `page.evaluate` here (0.7 against 1.3 ms of wall per call, 200 calls in a quiet tab). For the
 * calls every visit makes (the settle state, the settled read). The value comes back as CDP
 * carries it: JSON values only (`undefined` left out of objects and `null` in arrays, non-finite
 * numbers `null`). With `awaitPromise`, a promise's value (the evaluation fails when the
 * document goes away meanwhile).
 * @throws PageScriptError when the expression threw; the CDP error when there is no document to
 *   evaluate in (it navigated away, the tab closed: "Inspected target navigated or closed")
 */
export async function evaluateInTab<T>(cdp: CDPSession, expression: string, awaitPromise = false): Promise<T> {
  const answer = (await cdp.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise })) as EvaluateAnswer;
  if (answer.exceptionDetails) throw new PageScriptError(answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text);
  return answer.result.value as T;
}

/**
 * {@link evaluateInTab} of `jsonExpression` (made by {@link asJsonExpression}), parsed (or taken
 * as it came, when the page's JSON could not be trusted).
 * @throws as {@link evaluateInTab}
 */
export async function evaluateInTabJson<T>(cdp: CDPSession, jsonExpression: string): Promise<T> {
  return fromJson<T>(await evaluateInTab<unknown>(cdp, jsonExpression));
}

/** An expression evaluated in a page threw (its message is the exception's description, first line first). */
export class PageScriptError extends Error {
  constructor(description: string) {
    super(description);
    this.name = 'PageScriptError';
  }
}
