import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expansionsOf, nearestName, unknownFlagsIn } from '../../src/cli/suggest.js';
import { runInProcess } from '../helpers/cli.js';

describe('nearestName: a typo gets the name it is near, anything else gets none', () => {
  const commands = ['crawl', 'demo', 'diff', 'export', 'login', 'robots', 'status'];
  it.each([
    ['crawll', 'crawl'],
    ['craw', 'crawl'],
    ['stauts', 'status'],
    ['exprot', 'export'],
  ])('%s → %s', (typed, want) => expect(nearestName(typed, commands)).toBe(want));
  it.each(['x', 'xyz', 'publish', 'crawl'])('%s → none (too far, or no typo)', (typed) => expect(nearestName(typed, commands)).toBeNull());
  it('two neighbouring letters swapped is one slip, also in a short word', () => {
    expect(nearestName('nwe', ['new', 'none', 'warnings'])).toBe('new');
    expect(nearestName('borken-link', ['broken-link', 'server-error'])).toBe('broken-link');
    expect(nearestName('wen', ['new', 'none'])).toBeNull(); // two swaps apart, three letters: too far
  });

  it('two edits at most', () => {
    expect(nearestName('--concurency', ['--concurrency', '--config'])).toBe('--concurrency');
    expect(nearestName('--cncrncy', ['--concurrency'])).toBeNull();
  });
});

describe("unknownFlagsIn: the flags of oclif's error", () => {
  it('one, several, with a value, or none', () => {
    expect(unknownFlagsIn('Nonexistent flag: --concurency\nSee more help with --help')).toEqual(['--concurency']);
    expect(unknownFlagsIn('Nonexistent flags: --a, --max-pagse=3')).toEqual(['--a', '--max-pagse']);
    expect(unknownFlagsIn('Expected --concurrency=abc to be an integer')).toEqual([]);
  });
});

describe('expansionsOf: the names a short form stands for', () => {
  const flags = ['--login', '--logged-out', '--log-format', '--output-dir', '--out', '--slow', '--max-depth', '--max-pages'];
  it('whole words first, then beginnings, then abbreviations; nothing for another word', () => {
    expect(expansionsOf('--log', flags)).toEqual(['--log-format']);
    expect(expansionsOf('--lo', flags)).toEqual(['--login', '--logged-out', '--log-format']);
    expect(expansionsOf('--out-dir', flags)).toEqual(['--output-dir']);
    expect(expansionsOf('--log-fmt', flags)).toEqual(['--log-format']);
    expect(expansionsOf('--max', flags)).toEqual(['--max-depth', '--max-pages']);
    expect(expansionsOf('--max', flags, 1)).toEqual(['--max-depth']);
    expect(expansionsOf('--out', flags)).toEqual(['--output-dir']);
    expect(expansionsOf('--bogus', flags)).toEqual([]);
    expect(expansionsOf('--fmt', flags)).toEqual([]);
    expect(expansionsOf('--', flags)).toEqual([]);
  });
});

describe('usage errors name what was meant: exit 2, one line, nothing on stdout', () => {
  it.each([
    [['crawll', 'http://127.0.0.1:9/'], 'spacrawl: no command "crawll"; did you mean "crawl"? (spacrawl --help lists the commands)\n'],
    [['publish'], 'spacrawl: no command "publish" (spacrawl --help lists the commands)\n'],
    [['-x'], 'spacrawl: -x before a command: the command comes first, e.g. spacrawl crawl URL -x (spacrawl --help lists the commands)\n'],
    [['crawl', 'http://127.0.0.1:9/', '--concurency', '3'], 'spacrawl: Nonexistent flag: --concurency (did you mean --concurrency?)\n'],
    [['crawl', 'http://127.0.0.1:9/', '--jsn'], 'spacrawl: Nonexistent flag: --jsn (did you mean --json?)\n'],
    [['crawl', 'http://127.0.0.1:9/', '--zzzzzz'], 'spacrawl: Nonexistent flag: --zzzzzz (spacrawl crawl --help lists the flags)\n'],
    // A shortened flag names the flag it shortens, not the nearest by edits (`--log` is two from `--slow`).
    [['crawl', 'http://127.0.0.1:9/', '--log', 'json'], 'spacrawl: Nonexistent flag: --log (did you mean --log-format?)\n'],
    [['crawl', 'http://127.0.0.1:9/', '--out-dir', 'x'], 'spacrawl: Nonexistent flag: --out-dir (did you mean --output-dir?)\n'],
    [['crawl', 'http://127.0.0.1:9/', '--log-fmt', 'json'], 'spacrawl: Nonexistent flag: --log-fmt (did you mean --log-format?)\n'],
    [['status', '--bogus'], 'spacrawl: Nonexistent flag: --bogus (spacrawl status --help lists the flags)\n'],
    [['help', 'crawll'], 'spacrawl: no command "crawll"; did you mean "crawl"? (spacrawl --help lists the commands)\n'],
    // The stored crawl is checked before --report: a file that is not there is said first.
    [['export', '--records', 'test/unit/usage.test.ts'], 'spacrawl: missing required flag --report\n'],
    [['export', '--records', 'no-such-crawl.jsonl'], 'spacrawl: no-such-crawl.jsonl: no such file or folder\n'],
    [['export', '--state', 'no-such-crawl.db'], `spacrawl: no state file at ${path.resolve('no-such-crawl.db')}\n`],
    [['export', '--state', 'no-such-crawl.db', '--report', 'htm:x.html'], `spacrawl: no state file at ${path.resolve('no-such-crawl.db')}\n`],
    // A value not among the flag's options reads like the other flag errors (flag first).
    [['crawl', 'http://127.0.0.1:9/', '--click', 'maybe'], 'spacrawl: --click: Expected one of auto, all, off but received: maybe\n'],
    // An empty value is named, not a line that stops at its colon.
    [['crawl', 'http://127.0.0.1:9/', '--max-pages', ''], 'spacrawl: --max-pages: Expected an integer but received an empty value\n'],
    // A duration no timer can hold (Node fires it at once: the crawl timed out every page).
    [['crawl', 'http://127.0.0.1:9/', '--settle-timeout', '99999999999'], 'spacrawl: --settle-timeout: Expected an integer less than or equal to 2147483647 but received: 99999999999\n'],
    [['crawl', 'http://127.0.0.1:9/', '--max-time', '99999999999'], 'spacrawl: --max-time: Expected an integer less than or equal to 2147483 but received: 99999999999\n'],
    [['crawl', 'http://127.0.0.1:9/', '--report', 'htm:x.html'], 'spacrawl: unknown report format "htm" (did you mean "html"?) (known: jsonl, json, csv, html, junit, sitemap, markdown)\n'],
    // A thousand tabs on one machine: refused (each is a renderer of ~100 MB).
    [['crawl', 'http://127.0.0.1:9/', '--concurrency', '1000'], 'spacrawl: --concurrency: Expected an integer less than or equal to 256 but received: 1000\n'],
    // A seed the crawl's own --exclude keeps out: a contradiction, refused before anything is requested.
    [
      ['crawl', 'http://127.0.0.1:9/docs/', 'http://127.0.0.1:9/admin/', '--exclude', '**/tmp/**', '--exclude', '**/admin/**'],
      'spacrawl: seed http://127.0.0.1:9/admin/ matches --exclude "**/admin/**": an excluded URL is never crawled (drop the seed or narrow the pattern)\n',
    ],
  ])('%j', async (args, stderr) => {
    const r = await runInProcess(args);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: '', stderr });
  });
});
