/**
 * A login recorded with Chrome DevTools' Recorder (its JSON export), replayed with Playwright.
 * Step types and field names are the Recorder's (`@puppeteer/replay`'s `Schema.ts`): `navigate`
 * (`url`), `click` / `doubleClick` / `hover` (`selectors`), `change` (`selectors`, `value`),
 * `keyDown` / `keyUp` (`key`), `waitForElement` (`selectors`, `operator`, `count`, `visible`),
 * `waitForExpression` (`expression`), `setViewport` (`width`, `height`), `scroll` (`x`, `y`,
 * optional `selectors`), `close`; any step may carry `frame`, `timeout` and `assertedEvents`
 * (a `navigation` the step causes is waited for). `fill` is accepted as another name for
 * `change`. Every string may name an environment variable as `${env.NAME}`.
 * @module
 */
import type { Locator, Page } from 'playwright';
import { LoginEnv, LoginRecipeError } from './env.js';
import { frameOf, stepElements, stepLocator, type RecorderSelector } from './selectors.js';

/** One step of a recorded flow (the fields spacrawl reads). */
export interface RecorderStep {
  type: string;
  url?: string;
  selectors?: RecorderSelector[];
  value?: string;
  key?: string;
  frame?: number[];
  timeout?: number;
  operator?: '>=' | '==' | '<=';
  count?: number;
  visible?: boolean;
  expression?: string;
  width?: number;
  height?: number;
  x?: number;
  y?: number;
  assertedEvents?: { type: string; url?: string }[];
}

/** A recorded flow. */
export interface RecorderFlow {
  title: string;
  /** Default timeout of each step (ms). */
  timeout?: number;
  steps: RecorderStep[];
}

/** Step types replayed (the Recorder's, plus `fill`). */
export const RECORDER_STEPS: readonly string[] = [
  'navigate',
  'click',
  'doubleClick',
  'hover',
  'change',
  'fill',
  'keyDown',
  'keyUp',
  'waitForElement',
  'waitForExpression',
  'setViewport',
  'scroll',
  'close',
  'emulateNetworkConditions',
];

/** Steps that act on an element and need `selectors`. */
const NEEDS_SELECTORS = new Set(['click', 'doubleClick', 'hover', 'change', 'fill', 'waitForElement']);

/** Default time per step (ms), as Puppeteer's replay uses. */
export const DEFAULT_STEP_TIMEOUT_MS = 30_000;

const ENV_REF = /\$\{env\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Check a parsed Recorder export.
 * @param file - for messages
 * @throws LoginRecipeError naming the first problem (not a flow, an unknown step type, a step without what it needs)
 */
export function parseRecorderFlow(json: unknown, file: string): RecorderFlow {
  const flow = json as Partial<RecorderFlow> | null;
  if (!flow || typeof flow !== 'object' || !Array.isArray(flow.steps)) {
    throw new LoginRecipeError(`--login ${file}: not a Chrome DevTools Recorder export (no "steps" array)`);
  }
  flow.steps.forEach((s, i) => {
    const where = `--login ${file}: step ${i + 1}`;
    if (!s || typeof s !== 'object' || typeof s.type !== 'string') throw new LoginRecipeError(`${where} has no "type"`);
    if (!RECORDER_STEPS.includes(s.type)) throw new LoginRecipeError(`${where}: step type "${s.type}" is not supported (supported: ${RECORDER_STEPS.join(', ')})`);
    if (NEEDS_SELECTORS.has(s.type) && (!Array.isArray(s.selectors) || s.selectors.length === 0)) throw new LoginRecipeError(`${where} (${s.type}) has no "selectors"`);
    if (s.type === 'navigate' && typeof s.url !== 'string') throw new LoginRecipeError(`${where} (navigate) has no "url"`);
    if ((s.type === 'change' || s.type === 'fill') && typeof s.value !== 'string') throw new LoginRecipeError(`${where} (${s.type}) has no "value"`);
    if ((s.type === 'keyDown' || s.type === 'keyUp') && typeof s.key !== 'string') throw new LoginRecipeError(`${where} (${s.type}) has no "key"`);
    if (s.type === 'waitForExpression' && typeof s.expression !== 'string') throw new LoginRecipeError(`${where} (waitForExpression) has no "expression"`);
  });
  return { title: typeof flow.title === 'string' ? flow.title : '', steps: flow.steps, ...(typeof flow.timeout === 'number' ? { timeout: flow.timeout } : {}) };
}

/** Names of the environment variables a flow refers to (`${env.NAME}`), each once. */
export function envNamesOf(flow: RecorderFlow): string[] {
  const names = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') for (const m of v.matchAll(ENV_REF)) names.add(m[1]!);
    else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(flow.steps);
  return [...names];
}

/** `text` with each `${env.NAME}` replaced by the variable's value (read through `env`, so it is a secret). */
function expand(text: string, env: LoginEnv): string {
  return text.replace(ENV_REF, (_m, name: string) => env.get(name));
}

function expandSelectors(sels: readonly RecorderSelector[], env: LoginEnv): RecorderSelector[] {
  return sels.map((s) => (Array.isArray(s) ? s.map((p) => expand(p, env)) : expand(s, env)));
}

/**
 * Replay a flow in `page`, step by step. A step that causes a navigation (its `assertedEvents`
 * name one) waits for the new document to load before the next step.
 * @throws Error naming the step that failed (its number and type; never a typed value); a
 * LoginRecipeError for a variable that is not set
 */
export async function replayFlow(flow: RecorderFlow, page: Page, env: LoginEnv): Promise<void> {
  for (const [i, step] of flow.steps.entries()) {
    const timeout = step.timeout ?? flow.timeout ?? DEFAULT_STEP_TIMEOUT_MS;
    try {
      await withNavigation(page, step, timeout, () => runStep(page, step, env, timeout));
    } catch (err) {
      if (err instanceof LoginRecipeError) throw err;
      const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
      throw new Error(`login step ${i + 1} (${step.type}) failed: ${why}`, { cause: err });
    }
  }
}

/** Run `act`; when the step asserts a navigation, wait for the main frame to load a new document too. */
async function withNavigation(page: Page, step: RecorderStep, timeout: number, act: () => Promise<void>): Promise<void> {
  if (!step.assertedEvents?.some((e) => e.type === 'navigation') || step.type === 'navigate') return act();
  const navigated = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout });
  navigated.catch(() => {});
  await act();
  await navigated;
  await page.waitForLoadState('load', { timeout });
}

async function runStep(page: Page, step: RecorderStep, env: LoginEnv, timeout: number): Promise<void> {
  const frame = frameOf(page, step.frame);
  const el = (): Locator => stepLocator(frame, expandSelectors(step.selectors ?? [], env));
  switch (step.type) {
    case 'setViewport':
      if (step.width && step.height) await page.setViewportSize({ width: step.width, height: step.height });
      return;
    case 'navigate':
      await page.goto(expand(step.url!, env), { timeout, waitUntil: 'load' });
      return;
    case 'click':
      await el().click({ timeout });
      return;
    case 'doubleClick':
      await el().dblclick({ timeout });
      return;
    case 'hover':
      await el().hover({ timeout });
      return;
    case 'change':
    case 'fill':
      await change(el(), expand(step.value!, env), timeout);
      return;
    case 'keyDown':
      await page.keyboard.down(expand(step.key!, env));
      return;
    case 'keyUp':
      await page.keyboard.up(expand(step.key!, env));
      return;
    case 'waitForElement':
      await waitForCount(stepElements(frame, expandSelectors(step.selectors ?? [], env)), step, timeout);
      return;
    case 'waitForExpression':
      await frame.waitForFunction(expand(step.expression!, env), undefined, { timeout });
      return;
    case 'scroll': {
      const x = step.x ?? 0;
      const y = step.y ?? 0;
      if (step.selectors?.length) await el().evaluate((e, p) => e.scrollTo(p.x, p.y), { x, y }, { timeout });
      else await frame.evaluate((p) => window.scrollTo(p.x, p.y), { x, y });
      return;
    }
    default:
      // close, emulateNetworkConditions: nothing to do for a login
      return;
  }
}

/** A `change` step: a `<select>` gets the option, a checkbox or radio is checked, anything else filled. */
async function change(loc: Locator, value: string, timeout: number): Promise<void> {
  const kind = await loc.evaluate((e) => (e instanceof HTMLSelectElement ? 'select' : e instanceof HTMLInputElement && (e.type === 'checkbox' || e.type === 'radio') ? 'check' : 'fill'), undefined, { timeout });
  if (kind === 'select') await loc.selectOption(value, { timeout });
  else if (kind === 'check') await loc.check({ timeout });
  else await loc.fill(value, { timeout });
}

/** `waitForElement`: until the count of matching (with `visible: true`, visible) elements satisfies `operator count` (default `== 1`). */
async function waitForCount(elements: Locator, step: RecorderStep, timeout: number): Promise<void> {
  const count = step.count ?? 1;
  const op = step.operator ?? '==';
  const ok = (n: number): boolean => (op === '>=' ? n >= count : op === '<=' ? n <= count : n === count);
  const counted = step.visible === true ? elements.filter({ visible: true }) : elements;
  const deadline = Date.now() + timeout;
  for (;;) {
    const n = await counted.count();
    if (ok(n)) return;
    if (Date.now() > deadline) throw new Error(`waited ${timeout} ms for ${op} ${count} matching element(s), found ${n}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
