import { describe, expect, it } from 'vitest';
import { nearestName, unknownFlagsIn } from '../../src/cli/suggest.js';
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

describe('usage errors name what was meant: exit 2, one line, nothing on stdout', () => {
  it.each([
    [['crawll', 'http://127.0.0.1:9/'], 'spacrawl: no command "crawll"; did you mean "crawl"? (spacrawl --help lists the commands)\n'],
    [['publish'], 'spacrawl: no command "publish" (spacrawl --help lists the commands)\n'],
    [['-x'], 'spacrawl: -x before a command: the command comes first, e.g. spacrawl crawl URL -x (spacrawl --help lists the commands)\n'],
    [['crawl', 'http://127.0.0.1:9/', '--concurency', '3'], 'spacrawl: Nonexistent flag: --concurency (did you mean --concurrency?)\n'],
    [['crawl', 'http://127.0.0.1:9/', '--jsn'], 'spacrawl: Nonexistent flag: --jsn (did you mean --json?)\n'],
    [['crawl', 'http://127.0.0.1:9/', '--zzzzzz'], 'spacrawl: Nonexistent flag: --zzzzzz\n'],
    [['help', 'crawll'], 'spacrawl: no command "crawll"; did you mean "crawl"? (spacrawl --help lists the commands)\n'],
    [['export', '--records', 'x.jsonl'], 'spacrawl: missing required flag --report\n'],
    [['crawl', 'http://127.0.0.1:9/', '--report', 'htm:x.html'], 'spacrawl: unknown report format "htm" (did you mean "html"?) (known: jsonl, json, csv, html, junit, sitemap, markdown)\n'],
  ])('%j', async (args, stderr) => {
    const r = await runInProcess(args);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: '', stderr });
  });
});
