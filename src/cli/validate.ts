/**
 * Checks of the crawl command's flag values that oclif cannot make (URLs, regexes, files,
 * combinations), each failing with a one-line {@link OptionsError} or {@link InvalidUrlError}
 * (usage errors: exit 2) before anything is crawled.
 * @module
 */
import fs from 'node:fs';
import { deviceTable } from '../crawl/devices.js';
import { OptionsError } from '../crawl/options-error.js';
import { checkRedisTarget } from './redis-target.js';
import { describeFsError, ensureWritableDir } from '../util/files.js';
import { InvalidUrlError } from '../url/normalize.js';
import { compilePattern } from '../url/pattern.js';
import { jsonErrorAt } from '../util/json-error.js';

/**
 * Check a seed (or another URL given on the command line) before anything starts: absolute
 * http(s), no credentials.
 * @param raw - the argument as typed
 * @param what - what the URL is, for the error line (default `seed URL`)
 * @returns the parsed URL (its WHATWG `href`)
 * @throws InvalidUrlError with a one-line message otherwise
 */
export function checkSeed(raw: string, what = 'seed URL'): string {
  const absolute = `expected an absolute http:// or https:// ${what}`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    const meant = withScheme(raw);
    throw new InvalidUrlError(raw, meant ? `${absolute} (did you mean ${meant}?)` : absolute);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    // `localhost:8080` and `example.com:8080/a` parse, with the host taken for a scheme.
    const meant = /[.]|^localhost:$/i.test(u.protocol) ? withScheme(raw) : null;
    if (meant) throw new InvalidUrlError(raw, `${absolute} (did you mean ${meant}?)`);
    throw new InvalidUrlError(raw, `unsupported scheme ${u.protocol} (only http and https can be crawled)`);
  }
  // The message names the URL without its user and password: error lines end up in CI logs.
  if (u.username || u.password) throw new InvalidUrlError(raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@'), 'URLs with credentials (user:pass@) are refused');
  return u.href;
}

/**
 * A URL typed without its scheme (`example.com`, `127.0.0.1:8080/`, `localhost:3000`), with the
 * one it most likely needs: `http://` for `localhost` and IP addresses (a local or private server),
 * else `https://`; `null` when `raw` does not read as a host (no dot, not `localhost`), has a
 * scheme already, or holds user information or whitespace.
 */
function withScheme(raw: string): string | null {
  if (raw.includes('://') || raw.includes('@') || /\s/.test(raw)) return null;
  let host: string;
  try {
    host = new URL(`http://${raw}`).hostname;
  } catch {
    return null;
  }
  const local = host === 'localhost' || host.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(host);
  if (!local && !host.includes('.')) return null;
  return `${local ? 'http' : 'https'}://${raw}`;
}

/**
 * Check the flags of a shared (`--redis`) crawl against each other and the seeds.
 * @throws OptionsError for `--redis` without `--crawl-id` (or the reverse), `--redis` with
 * `--state`, a bad Redis URL or crawl id, or no seed without `--redis`
 */
export function checkSharedFlags(flags: { redis?: string | undefined; 'crawl-id'?: string | undefined; state?: string | undefined }, seedCount: number): void {
  if (flags.redis && flags.state) throw new OptionsError('--redis and --state cannot be used together (one frontier per crawl)');
  if (flags.redis && !flags['crawl-id']) throw new OptionsError('--redis needs --crawl-id NAME (the shared crawl to join)');
  if (flags['crawl-id'] && !flags.redis) throw new OptionsError('--crawl-id needs --redis URL');
  if (flags.redis) checkRedisTarget(flags.redis, flags['crawl-id']!);
  else if (seedCount === 0) throw new OptionsError('give at least one seed URL, e.g. spacrawl crawl https://example.com/');
}

/**
 * Parse `--viewport WIDTHxHEIGHT`.
 * @throws OptionsError otherwise
 */
export function parseViewport(v: string): { width: number; height: number } {
  const m = /^(\d{2,5})x(\d{2,5})$/i.exec(v.trim());
  if (!m) throw new OptionsError(`--viewport must look like 1280x800, got ${JSON.stringify(v)}`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

/**
 * Check a Playwright device name (loads Playwright's device table: see `crawl/devices.ts`).
 * @returns the name, unchanged
 * @throws OptionsError for an unknown one, naming a few known ones
 */
export function checkDevice(name: string): string {
  const devices = deviceTable();
  if (devices[name]) return name;
  const near = Object.keys(devices).filter((d) => d.toLowerCase().includes(name.toLowerCase().split(' ')[0] ?? '')).slice(0, 5);
  throw new OptionsError(`unknown --device ${JSON.stringify(name)}${near.length ? ` (did you mean ${near.map((d) => JSON.stringify(d)).join(', ')}?)` : ''}`);
}

/**
 * Parse repeated `--header "Name: value"`.
 * @throws OptionsError for a value without a colon or with an invalid name
 */
export function parseHeaders(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const i = v.indexOf(':');
    const name = i > 0 ? v.slice(0, i).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new OptionsError(`--header must look like "Name: value", got ${JSON.stringify(v)}`);
    out[name] = v.slice(i + 1).trim();
  }
  return out;
}

/**
 * Check that a file exists and can be read.
 * @throws OptionsError otherwise
 */
export function checkReadable(flag: string, file: string): string {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return file;
  } catch {
    throw new OptionsError(`${flag} ${file}: no such readable file`);
  }
}

/**
 * Check a Playwright storage-state file (`--storage-state`) before the browser starts: readable, JSON, and of the
 * shape Playwright reads (`{cookies?: {name, value, …}[], origins?: {origin, localStorage: {name, value}[]}[]}`,
 * as `browserContext.storageState()` writes it and `spacrawl login --save-state` saves it).
 * @returns the file's absolute path
 * @throws OptionsError with a one-line reason when the file is missing, not JSON or not a storage state
 */
export function checkStorageState(flag: string, file: string): string {
  checkReadable(flag, file);
  let data: unknown;
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
    data = JSON.parse(text);
  } catch (err) {
    const why = err instanceof SyntaxError ? `not JSON (${jsonErrorAt(err.message, text)})` : describeFsError(err);
    throw new OptionsError(`${flag} ${file}: ${why}`);
  }
  const problem = storageStateProblem(data);
  if (problem) throw new OptionsError(`${flag} ${file}: not a Playwright storage state (${problem})`);
  return file;
}

function storageStateProblem(data: unknown): string | null {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const named = (v: unknown): boolean => isObj(v) && typeof v.name === 'string' && typeof v.value === 'string';
  if (!isObj(data)) return 'expected a JSON object with "cookies" and "origins"';
  if (data.cookies !== undefined) {
    if (!Array.isArray(data.cookies)) return '"cookies" is not an array';
    const bad = data.cookies.findIndex((c) => !named(c));
    if (bad >= 0) return `cookie ${bad} has no string "name" and "value"`;
  }
  if (data.origins !== undefined) {
    if (!Array.isArray(data.origins)) return '"origins" is not an array';
    const bad = data.origins.findIndex((o) => !isObj(o) || typeof o.origin !== 'string' || !Array.isArray(o.localStorage) || !o.localStorage.every(named));
    if (bad >= 0) return `origin ${bad} needs a string "origin" and a "localStorage" array of {name, value}`;
  }
  return null;
}

/**
 * Check a regex flag value.
 * @throws OptionsError with a one-line message when it does not compile
 */
export function checkRegex(flag: string, source: string): void {
  try {
    new RegExp(source, 'i');
  } catch (err) {
    throw new OptionsError(`${flag} ${JSON.stringify(source)} is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Parse `--rate`: a positive number of navigations per second.
 * @throws OptionsError otherwise
 */
export function parseRate(v: string): number {
  const n = Number(v);
  if (!/^\d*\.?\d+$/.test(v.trim()) || !(n > 0)) throw new OptionsError(`--rate must be a positive number of page navigations per second, got ${JSON.stringify(v)}`);
  return n;
}

/**
 * Make sure `dir` exists (creating it) and is writable.
 * @param what - what the error line says cannot be written (default `screenshots to <dir>`)
 * @throws OptionsError with a one-line message otherwise
 */
export function checkWritableDir(dir: string, what = `screenshots to ${dir}`): void {
  try {
    ensureWritableDir(dir);
  } catch (err) {
    throw new OptionsError(`cannot write ${what}: ${describeFsError(err)}`);
  }
}

/**
 * Check the URL patterns of a crawl: `include`/`exclude` (globs or `/regex/`) and the
 * `clickExclude` regexes.
 * @throws InvalidPatternError or OptionsError with a one-line message for the first bad one
 */
export function checkPatterns(o: { include?: readonly string[]; exclude?: readonly string[]; clickExclude?: readonly string[] }): void {
  for (const p of [...(o.include ?? []), ...(o.exclude ?? [])]) compilePattern(p);
  for (const p of o.clickExclude ?? []) checkRegex('--click-exclude', p);
}

/**
 * Check the flags that shape screenshots against the flags that take them: `--screenshot
 * viewport`, `--hide` and `--visual-mask` change how a shot is taken, so without `--screenshots`
 * or `--output-dir` (which takes them into its `screenshots/`) they would be silently ignored.
 * @param shooting - whether screenshots are taken (`--screenshots` or `--output-dir` given)
 * @throws OptionsError with a one-line message otherwise
 */
export function checkScreenshotFlags(flags: { screenshot: string; hide?: readonly string[] | undefined; 'visual-mask'?: readonly string[] | undefined }, shooting: boolean): void {
  if (shooting) return;
  const given = [flags.screenshot !== 'full' ? `--screenshot ${flags.screenshot}` : null, flags.hide?.length ? '--hide' : null, flags['visual-mask']?.length ? '--visual-mask' : null].filter((x) => x !== null);
  if (given.length) throw new OptionsError(`${given.join(', ')}: no screenshots are taken without --screenshots DIR or --output-dir DIR`);
}

/**
 * Check the audit flags against each other: `--budget`, `--vitals-concurrency` and
 * `--vitals-throttle` limit or shape the measured vitals, so they need `--vitals`.
 * @throws OptionsError with a one-line message otherwise
 */
export function checkAuditFlags(flags: { vitals: boolean; budget?: string | undefined; 'vitals-concurrency'?: number | undefined; 'vitals-throttle': string }): void {
  if (flags.vitals) return;
  if (flags.budget !== undefined) throw new OptionsError('--budget needs --vitals (budgets limit the measured vitals)');
  if (flags['vitals-concurrency'] !== undefined) throw new OptionsError('--vitals-concurrency needs --vitals');
  if (flags['vitals-throttle'] !== 'none') throw new OptionsError('--vitals-throttle needs --vitals');
}
