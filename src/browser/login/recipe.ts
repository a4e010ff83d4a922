/**
 * Login recipes: how a crawl logs in. Either an ES module whose default export logs in with a
 * real page (`async ({ page, context, env, baseUrl }) => void`), or a flow recorded with Chrome
 * DevTools' Recorder and exported as JSON (replayed by `recorder.ts`). Secrets come from the
 * environment only, through {@link LoginEnv}, which remembers every value it handed out so that
 * they can be removed from everything spacrawl writes.
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright';
import { LoginEnv, LoginRecipeError } from './env.js';
export { LoginEnv, LoginRecipeError } from './env.js';
import { envNamesOf, parseRecorderFlow, replayFlow } from './recorder.js';
import { jsonErrorAt } from '../../util/json-error.js';

/** What a login function is given. */
export interface LoginArgs {
  /** A fresh page in a fresh context of the crawl's browser (same User-Agent, viewport, proxy, headers). */
  page: Page;
  /** The page's context: its cookies and local storage become the crawl's session. */
  context: BrowserContext;
  /**
   * The environment, read-only. Every value read through it is a secret: it is never written
   * anywhere. A variable that is not set reads as `undefined` (fall back with `??`, or throw).
   */
  env: Readonly<Record<string, string | undefined>>;
  /** The crawl's first seed (or the URL given to `spacrawl login`). */
  baseUrl: string;
}

/** A login written as code: log in with `page`; resolve when logged in, throw when it failed. */
export type LoginFunction = (args: LoginArgs) => Promise<void> | void;

/** A loaded login recipe. */
export interface LoginRecipe {
  /** Where it came from, for messages: the file's path, or `login function`. */
  readonly source: string;
  /**
   * Log in with `page`.
   * @throws the recipe's own error when a step fails; {@link LoginRecipeError} for a variable a
   * Recorder flow needs that is not set (a module reads it as `undefined`)
   */
  run(page: Page, context: BrowserContext, env: LoginEnv, baseUrl: string): Promise<void>;
}

/** A recipe from a login function given in code (the library's `login` option). */
export function functionRecipe(fn: LoginFunction): LoginRecipe {
  return {
    source: 'login function',
    async run(page, context, env, baseUrl) {
      await fn({ page, context, env: env.view(), baseUrl });
    },
  };
}

/**
 * Load a login recipe from a file: `.json` is a Chrome DevTools Recorder export, anything else
 * an ES module whose default export is a {@link LoginFunction}. A Recorder flow's
 * `${env.NAME}` references are checked against `env` now.
 * @param file - path of the recipe (relative to the working directory)
 * @param env - the environment the recipe will read
 * @throws LoginRecipeError when the file is missing, is not valid JSON / a module with a
 * default function, names an unsupported step, or needs a variable that is not set
 */
export async function loadLoginRecipe(file: string, env: LoginEnv = new LoginEnv()): Promise<LoginRecipe> {
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) throw new LoginRecipeError(`--login ${file}: no such file`);
  if (/\.json$/i.test(abs)) {
    let json: unknown;
    let text = '';
    try {
      text = fs.readFileSync(abs, 'utf8');
      json = JSON.parse(text);
    } catch (err) {
      throw new LoginRecipeError(`--login ${file}: not valid JSON (${err instanceof SyntaxError ? jsonErrorAt(err.message, text) : err instanceof Error ? err.message.split('\n')[0] : String(err)})`, { cause: err });
    }
    const flow = parseRecorderFlow(json, file);
    for (const name of envNamesOf(flow)) if (!env.has(name)) throw new LoginRecipeError(`--login ${file} needs the environment variable ${name}, which is not set`);
    return { source: abs, run: (page, _context, e) => replayFlow(flow, page, e) };
  }
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(abs).href)) as { default?: unknown };
  } catch (err) {
    throw new LoginRecipeError(`--login ${file}: cannot be loaded as an ES module (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`, { cause: err });
  }
  if (typeof mod.default !== 'function') throw new LoginRecipeError(`--login ${file}: its default export must be a function async ({ page, context, env, baseUrl }) => {…}`);
  const fn = mod.default as LoginFunction;
  return { ...functionRecipe(fn), source: abs };
}
