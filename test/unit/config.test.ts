// `--config FILE` / ./spacrawl.config.json: its keys are the crawl command's flags (made from the
// option declarations), its values are checked like the flags', and the command line wins.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Parser } from '@oclif/core';
import { afterAll, describe, expect, it } from 'vitest';
import Crawl from '../../src/commands/crawl.js';
import { applyConfig } from '../../src/cli/config.js';
import { OptionsError } from '../../src/crawl/options.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-config-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** Write a config file and merge it into `argv`'s parsed crawl flags. */
async function merged(config: unknown, argv: string[] = []): Promise<Record<string, unknown>> {
  const file = path.join(dir, `c${n++}.json`);
  fs.writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  const { flags } = await Parser.parse(argv, { flags: Crawl.flags, args: {}, strict: false });
  return applyConfig(Crawl.flags, flags as Record<string, unknown>, argv, file);
}

/** The one-line OptionsError message `applyConfig` throws, with the temp file name as FILE. */
async function refusal(config: unknown): Promise<string> {
  try {
    await merged(config);
  } catch (err) {
    expect(err).toBeInstanceOf(OptionsError);
    return (err as Error).message.replace(/\S*c\d+\.json/, 'FILE');
  }
  throw new Error('accepted');
}

describe('config file', () => {
  it('sets flags of every kind: integer, seconds, choice, list, boolean, --[no-] boolean, number-as-string', async () => {
    const f = await merged({ 'max-depth': 3, 'max-retry-after': 5, scope: 'domain', exclude: ['/admin/', '/tmp/'], include: '/docs/', scroll: true, soft404: false, rate: 0.5 });
    expect({ d: f['max-depth'], r: f['max-retry-after'], s: f.scope, e: f.exclude, i: f.include, sc: f.scroll, so: f.soft404, rate: f.rate }).toEqual({
      d: 3,
      r: 5,
      s: 'domain',
      e: ['/admin/', '/tmp/'],
      i: ['/docs/'],
      sc: true,
      so: false,
      rate: '0.5',
    });
  });

  it('a file that is not JSON: one line naming where, as a character position and as line and column', async () => {
    expect(await refusal('{\n  "max-depth": 1,,\n}\n')).toBe('cannot read config FILE: Expected double-quoted property name in JSON at position 19 (line 2, column 18)');
  });

  it('a file that is not JSON at all (YAML), or has a bad word: one line with the position, not an excerpt of the file', async () => {
    // V8 words these with an excerpt of the text ("Unexpected token 'm', \"max-depth: 3\n…"), line breaks and all.
    expect(await refusal('max-depth: 3\nscope: domain\n')).toBe("cannot read config FILE: Unexpected token 'm' in JSON at position 0 (line 1, column 1)");
    expect(await refusal('{\n  "max-depth": 3,\n  "scroll": yes\n}\n')).toBe("cannot read config FILE: Unexpected token 'y' in JSON at position 32 (line 3, column 13)");
    expect(await refusal('{"scroll": tru}')).toBe("cannot read config FILE: Unexpected token '}' in JSON at position 14 (line 1, column 15)");
  });

  it('the command line wins, also --no-X over a config true', async () => {
    const f = await merged({ 'max-depth': 3, soft404: true, scope: 'domain' }, ['--max-depth', '1', '--no-soft404', '--scope=subdomains']);
    expect({ d: f['max-depth'], so: f.soft404, s: f.scope }).toEqual({ d: 1, so: false, s: 'subdomains' });
  });

  it('every flag of crawl is a key: a config of all the defaults changes nothing', async () => {
    const defaults: Record<string, unknown> = {};
    for (const [name, flag] of Object.entries(Crawl.flags)) {
      const def = (flag as { default?: unknown }).default;
      if (name !== 'config' && def !== undefined) defaults[name] = def;
    }
    expect(Object.keys(defaults).length).toBeGreaterThan(30);
    const { flags } = await Parser.parse([], { flags: Crawl.flags, args: {}, strict: false });
    expect(await merged(defaults)).toEqual(flags);
  });

  it('bad keys and values are one-line OptionsErrors naming the file and the key', async () => {
    expect(await refusal({ nope: 1 })).toBe('config FILE: unknown setting "nope"');
    expect(await refusal({ concurency: 2 })).toBe('config FILE: unknown setting "concurency" (did you mean "concurrency"?)');
    expect(await refusal({ config: 'x.json' })).toBe('config FILE: unknown setting "config"');
    expect(await refusal({ scroll: 'yes' })).toBe('config FILE: scroll must be true or false, got "yes"');
    expect(await refusal({ scope: 'world' })).toBe('config FILE: scope must be one of host, subdomains, domain, got "world"');
    expect(await refusal({ 'max-depth': 'x' })).toBe('config FILE: max-depth: Expected an integer but received: x');
    expect(await refusal({ concurrency: 0 })).toBe('config FILE: concurrency: Expected an integer greater than or equal to 1 but received: 0');
    expect(await refusal({ exclude: [{}] })).toBe('config FILE: exclude must be a string or number, got [{}]');
    expect(await refusal([1])).toBe('config FILE must hold one JSON object of flag values');
    expect(await refusal('{"max-depth": ')).toMatch(/^cannot read config FILE: /);
  });
});
