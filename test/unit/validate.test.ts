// The crawl command's flag checks (src/cli/validate.ts): values oclif cannot check, each refused
// with one line before anything is crawled.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OptionsError } from '../../src/crawl/options.js';
import { UsageError } from '../../src/model/errors.js';
import {
  checkDevice,
  checkPatterns,
  checkReadable,
  checkRegex,
  checkScreenshotFlags,
  checkSeed,
  checkSharedFlags,
  checkStorageState,
  parseHeaders,
  parseRate,
  parseViewport,
} from '../../src/cli/validate.js';

/** The message of the usage error `f` throws (and that it is one line). */
function refusal(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    const m = (err as Error).message;
    expect(m.includes('\n')).toBe(false);
    return m;
  }
  throw new Error('accepted');
}

describe('flag checks', () => {
  it('seeds: absolute http(s) without credentials', () => {
    expect(checkSeed('http://127.0.0.1:8080/a b')).toBe('http://127.0.0.1:8080/a%20b');
    expect(refusal(() => checkSeed('example.com'))).toMatch(/expected an absolute http:\/\/ or https:\/\/ seed URL/);
    expect(refusal(() => checkSeed('ftp://x/'))).toMatch(/unsupported scheme ftp: \(only http and https can be crawled\)/);
    expect(refusal(() => checkSeed('http://u:p@x/'))).toMatch(/URLs with credentials \(user:pass@\) are refused/);
    // Never the password itself: the line goes to CI logs.
    expect(refusal(() => checkSeed('http://user:s3cret@x/a'))).toBe('Invalid URL "http://***@x/a": URLs with credentials (user:pass@) are refused');
    expect(refusal(() => checkSeed('x', 'URL'))).toMatch(/expected an absolute http:\/\/ or https:\/\/ URL/);
  });

  it('a seed typed without its scheme: the line says which URL was likely meant', () => {
    const meant = (raw: string): string => refusal(() => checkSeed(raw)).replace(/^.*\(did you mean (.*)\?\)$/, '$1');
    expect(refusal(() => checkSeed('example.com'))).toBe('Invalid URL "example.com": expected an absolute http:// or https:// seed URL (did you mean https://example.com?)');
    expect(meant('www.example.com/docs/')).toBe('https://www.example.com/docs/');
    expect(meant('127.0.0.1:8791/')).toBe('http://127.0.0.1:8791/');
    // Parsed with the host taken for a scheme: not "unsupported scheme localhost:".
    expect(meant('localhost:3000')).toBe('http://localhost:3000');
    expect(meant('example.com:8080/a')).toBe('https://example.com:8080/a');
    expect(meant('[::1]:8080/')).toBe('http://[::1]:8080/');
    // Nothing that reads as a host, a scheme of its own, or user information: no guess.
    for (const raw of ['not-a-url', 'x', 'a b.com']) expect(refusal(() => checkSeed(raw))).toBe(`Invalid URL "${raw}": expected an absolute http:// or https:// seed URL`);
    expect(refusal(() => checkSeed('mailto:a@b.com'))).toBe('Invalid URL "mailto:a@b.com": unsupported scheme mailto: (only http and https can be crawled)');
    expect(refusal(() => checkSeed('ftp.example.com:21'))).toMatch(/did you mean https:\/\/ftp\.example\.com:21\?/);
    expect(refusal(() => checkSeed('localhost:3000', 'URL'))).toBe('Invalid URL "localhost:3000": expected an absolute http:// or https:// URL (did you mean http://localhost:3000?)');
  });

  it('--screenshot viewport, --hide and --visual-mask need screenshots taken', () => {
    expect(() => checkScreenshotFlags({ screenshot: 'full', hide: [], 'visual-mask': [] }, false)).not.toThrow();
    expect(() => checkScreenshotFlags({ screenshot: 'viewport', hide: ['.b'], 'visual-mask': ['.d'] }, true)).not.toThrow();
    expect(refusal(() => checkScreenshotFlags({ screenshot: 'viewport' }, false))).toBe('--screenshot viewport: no screenshots are taken without --screenshots DIR or --output-dir DIR');
    expect(refusal(() => checkScreenshotFlags({ screenshot: 'full', hide: ['.cookie'], 'visual-mask': ['.date'] }, false))).toBe(
      '--hide, --visual-mask: no screenshots are taken without --screenshots DIR or --output-dir DIR',
    );
  });

  it('--viewport, --rate, --header, --device, regexes, readable files', () => {
    expect(parseViewport('1024X768')).toEqual({ width: 1024, height: 768 });
    expect(refusal(() => parseViewport('1024'))).toBe('--viewport must look like 1280x800, got "1024"');
    expect(parseRate('0.5')).toBe(0.5);
    expect(refusal(() => parseRate('0'))).toBe('--rate must be a positive number of page navigations per second, got "0"');
    expect(refusal(() => parseRate('2/s'))).toBe('--rate must be a positive number of page navigations per second, got "2/s"');
    expect(parseHeaders(['X-A: 1', 'Authorization:  Bearer t '])).toEqual({ 'X-A': '1', Authorization: 'Bearer t' });
    expect(refusal(() => parseHeaders(['no colon']))).toBe('--header must look like "Name: value", got "no colon"');
    expect(refusal(() => parseHeaders(['Bad Name: x']))).toBe('--header must look like "Name: value", got "Bad Name: x"');
    expect(checkDevice('iPhone 13')).toBe('iPhone 13');
    expect(refusal(() => checkDevice('Pixel 99 Ultra'))).toMatch(/^unknown --device "Pixel 99 Ultra" \(did you mean "Pixel/);
    expect(() => checkRegex('--click-exclude', '^log ?out')).not.toThrow();
    expect(refusal(() => checkRegex('--click-exclude', '('))).toMatch(/^--click-exclude "\(" is not a valid regular expression: /);
    expect(refusal(() => checkPatterns({ include: ['/docs/**'], clickExclude: ['['] }))).toMatch(/^--click-exclude "\[" is not a valid/);
    expect(refusal(() => checkPatterns({ exclude: ['/(/'] }))).toMatch(/Invalid pattern "\/\(\/"/);
    expect(refusal(() => checkReadable('--storage-state', '/nonexistent/state.json'))).toBe('--storage-state /nonexistent/state.json: no such readable file');
  });

  it('--storage-state: a file Playwright can read, or one line saying why not, before the browser starts', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-state-'));
    const file = (name: string, text: string): string => {
      fs.writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const good = file('good.json', JSON.stringify({ cookies: [{ name: 'sid', value: '1', domain: 'a.test', path: '/' }], origins: [{ origin: 'https://a.test', localStorage: [{ name: 'k', value: 'v' }] }] }));
    expect(checkStorageState('--storage-state', good)).toBe(good);
    expect(checkStorageState('--storage-state', file('empty.json', '{}'))).toBe(path.join(dir, 'empty.json'));
    const bad = (name: string, text: string): string => refusal(() => checkStorageState('--storage-state', file(name, text)));
    expect(bad('text.txt', 'hello\nworld')).toBe(`--storage-state ${path.join(dir, 'text.txt')}: not JSON (Unexpected token 'h' in JSON at position 0 (line 1, column 1))`);
    expect(bad('word.json', '{\n  "cookies": [],\n  "origins": nope\n}')).toBe(`--storage-state ${path.join(dir, 'word.json')}: not JSON (Unexpected token 'o' in JSON at position 33 (line 3, column 15))`);
    expect(bad('cookies.json', '{"cookies":5}')).toBe(`--storage-state ${path.join(dir, 'cookies.json')}: not a Playwright storage state ("cookies" is not an array)`);
    expect(bad('cookie.json', '{"cookies":[{"name":"a"}]}')).toMatch(/cookie 0 has no string "name" and "value"\)$/);
    expect(bad('origins.json', '{"origins":[{"origin":"x"}]}')).toMatch(/origin 0 needs a string "origin"/);
    expect(bad('array.json', '[]')).toMatch(/expected a JSON object/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shared-crawl flags against each other and the seeds', () => {
    const shared = (flags: Record<string, string>, seeds = 1): string => refusal(() => checkSharedFlags(flags, seeds));
    expect(shared({ redis: 'redis://h', state: 's.db', 'crawl-id': 'x' })).toBe('--redis and --state cannot be used together (one frontier per crawl)');
    expect(shared({ redis: 'redis://h' })).toBe('--redis needs --crawl-id NAME (the shared crawl to join)');
    expect(shared({ 'crawl-id': 'x' })).toBe('--crawl-id needs --redis URL');
    expect(shared({ redis: 'http://h', 'crawl-id': 'x' })).toBe('--redis must be a redis:// or rediss:// URL, got "http://h"');
    expect(shared({}, 0)).toBe('give at least one seed URL, e.g. spacrawl crawl https://example.com/');
    expect(() => checkSharedFlags({ redis: 'redis://h', 'crawl-id': 'docs' }, 0)).not.toThrow();
  });

  it('are OptionsErrors (exit 2)', () => {
    expect(() => parseRate('x')).toThrow(OptionsError);
  });
});
