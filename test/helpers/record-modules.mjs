/**
 * A `node --import` preload that records every module the process loads, for
 * test/startup.test.ts: with SPACRAWL_RECORD_MODULES=FILE, each module's URL is appended to FILE,
 * one a line. ES modules are seen by a `load` hook (registered from here, run on Node's hooks
 * thread); CommonJS modules, also those a package `require`s internally (which the hook does not
 * see), are taken from the CommonJS cache when the process exits.
 */
import fs from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

const out = process.env.SPACRAWL_RECORD_MODULES;

if (isMainThread && out) {
  register(import.meta.url, { data: { out } });
  process.on('exit', () => {
    const cjs = Object.keys(Module._cache).map((f) => (f.startsWith('/') ? pathToFileURL(f).href : f));
    fs.appendFileSync(out, cjs.map((u) => `${u}\n`).join(''));
  });
}

/** The file the hooks thread appends to (from `register`'s data). */
let file = out;

/** Hooks thread: receives the output file. */
export function initialize(data) {
  file = data.out;
}

/** Hooks thread: record each ES module (and each CommonJS module imported from one) as it loads. */
export async function load(url, context, next) {
  if (file) fs.appendFileSync(file, `${url}\n`);
  return next(url, context);
}
