// One declaration per option (src/crawl/option-table.ts, src/cli/cli-options.ts), and everything
// that repeats it by hand checked against it: the flags of every command, the library's defaults
// and ranges, TSDoc `@default`s, the defaults named in README and docs/ (like lychee's
// `check_default_values!`; docs/flags.md itself is checked by test/unit/docs-flags.test.ts).
// No browser, no process.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser } from '@oclif/core';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import Crawl from '../../src/commands/crawl.js';
import { crawlOptionsOf, frontierChoiceOf, reportingOf } from '../../src/cli/crawl-command.js';
import { CLI_OPTIONS } from '../../src/cli/cli-options.js';
import { declarationOf, type CrawlFlags } from '../../src/cli/flags.js';
import { FLAGS_DOC, renderFlagTable } from '../../src/cli/flag-table.js';
import { DEFAULT_FAIL_ON } from '../../src/cli/reporting.js';
import { defaultTextOf, flagDefaultOf, type OptionSpec } from '../../src/crawl/option-spec.js';
import { CRAWL_LIMITS, CRAWL_OPTIONS } from '../../src/crawl/option-table.js';
import { OptionsError, resolveOptions, type ResolvedCrawlOptions } from '../../src/crawl/options.js';
import { DEFAULT_LEASE_TTL_MS, DEFAULT_REDIS_RETRY_MS } from '../../src/store/redis/frontier.js';
import { DEFAULT_A11Y_TAGS } from '../../src/browser/a11y.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SEEDS = ['http://127.0.0.1:9/'];
const NORMALIZE_KEYS = new Set(['hashRoutes', 'keepParams', 'stripParams', 'foldTrailingSlash', 'foldIndex']);

/** The resolved value of a declared option (URL rules sit under `normalize`). */
function resolvedValue(r: ResolvedCrawlOptions, key: string): unknown {
  return NORMALIZE_KEYS.has(key) ? r.normalize[key as keyof ResolvedCrawlOptions['normalize']] : r[key as keyof ResolvedCrawlOptions];
}

/** `@default` texts of an interface's members in a source file, read with the TypeScript compiler. */
function documentedDefaults(file: string, iface: string): Map<string, string | null> {
  const src = ts.createSourceFile(file, fs.readFileSync(path.join(REPO, file), 'utf8'), ts.ScriptTarget.Latest, true);
  let found: ts.InterfaceDeclaration | undefined;
  src.forEachChild((n) => {
    if (ts.isInterfaceDeclaration(n) && n.name.text === iface) found = n;
  });
  if (!found) throw new Error(`no interface ${iface} in ${file}`);
  const out = new Map<string, string | null>();
  for (const m of found.members) {
    if (!ts.isPropertySignature(m) || !ts.isIdentifier(m.name)) continue;
    const tag = ts.getJSDocTags(m).find((t) => t.tagName.text === 'default');
    out.set(m.name.text, tag ? (ts.getTextOfJSDocComment(tag.comment) ?? '').trim() : null);
  }
  return out;
}

/** True when a documented default says `expected` (then the end, or a word boundary and more words). */
function says(doc: string | null | undefined, expected: string): boolean {
  return doc !== null && doc !== undefined && (doc === expected || (doc.startsWith(expected) && /^[\s:,(]/.test(doc.slice(expected.length))));
}

describe('every flag of every command is made from a declaration', () => {
  for (const [id, cmd] of Object.entries(COMMANDS)) {
    it(id, () => {
      const flags = cmd.flags as Record<string, Record<string, unknown>>;
      expect(Object.keys(flags).length).toBeGreaterThan(0);
      for (const [name, flag] of Object.entries(flags)) {
        const spec = declarationOf(flag);
        expect(spec?.flag, `--${name} of ${id}: written by hand instead of flagOf(declaration)`).toBe(name);
        const s = spec!;
        const isInteger = s.kind === 'integer' || s.flagKind === 'integer';
        expect(
          { type: flag.type, default: flag.default, min: flag.min, options: flag.options, multiple: flag.multiple ?? false, allowNo: flag.allowNo ?? false, description: flag.description },
          `--${name} of ${id}`,
        ).toEqual({
          type: s.kind === 'boolean' ? 'boolean' : 'option',
          default: s.kind === 'boolean' ? flagDefaultOf(s) === true : flagDefaultOf(s),
          min: isInteger ? s.min : undefined,
          options: s.choices ? [...s.choices] : undefined,
          multiple: s.kind === 'list',
          allowNo: s.allowNo ?? false,
          description: s.help,
        });
      }
    });
  }

  it('a flag in seconds carries the declared milliseconds / 1000', () => {
    expect(Crawl.flags['max-retry-after'].default).toBe(60);
    expect(Crawl.flags['lease-ttl'].default).toBe(DEFAULT_LEASE_TTL_MS / 1000);
    expect(Crawl.flags['redis-timeout'].default).toBe(DEFAULT_REDIS_RETRY_MS / 1000);
    expect(COMMANDS.status.flags['redis-timeout'].default).toBe(DEFAULT_REDIS_RETRY_MS / 1000);
    expect(COMMANDS.export.flags['redis-timeout'].default).toBe(DEFAULT_REDIS_RETRY_MS / 1000);
  });
});

describe('the library takes its defaults and ranges from the declarations', () => {
  const resolved = resolveOptions({ seeds: SEEDS });

  it('resolveOptions({ seeds }) holds every declared default', () => {
    const got: Record<string, unknown> = {};
    const want: Record<string, unknown> = {};
    for (const [key, spec] of Object.entries(CRAWL_OPTIONS)) {
      got[key] = resolvedValue(resolved, key);
      want[key] = spec.default;
    }
    expect(got).toEqual(want);
  });

  it('the longest duration a timer can hold is accepted: 2147483647 ms, 2147483 s', () => {
    const o = resolveOptions({ seeds: SEEDS, settleTimeoutMs: 2_147_483_647, timeoutMs: 2_147_483_647, maxTimeSeconds: 2_147_483 });
    expect([o.settleTimeoutMs, o.timeoutMs, o.maxTimeSeconds]).toEqual([2_147_483_647, 2_147_483_647, 2_147_483]);
  });

  it('with a device, the viewport is the device\'s (no declared default on top)', () => {
    expect(resolveOptions({ seeds: SEEDS, device: 'iPhone 13' }).viewport).toBeNull();
    expect(resolveOptions({ seeds: SEEDS, device: 'iPhone 13', viewport: { width: 500, height: 400 } }).viewport).toEqual({ width: 500, height: 400 });
  });

  const integers = Object.entries(CRAWL_OPTIONS).filter(([, s]) => s.kind === 'integer') as [string, OptionSpec & { min: number }][];
  for (const [key, spec] of integers) {
    const name = spec.flag ?? spec.label;
    it(`${key}: ${spec.min} is accepted, ${spec.min - 1} is an OptionsError naming ${name}`, () => {
      expect(resolvedValue(resolveOptions({ seeds: SEEDS, [key]: spec.min + (key === 'quietMs' ? 300 : 0) }), key)).toBe(spec.min + (key === 'quietMs' ? 300 : 0));
      let err: unknown = null;
      try {
        resolveOptions({ seeds: SEEDS, [key]: spec.min - 1 });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(OptionsError);
      expect((err as Error).message).toBe(`${name} must be at least ${spec.min}, got ${spec.min - 1}`);
    });
  }

  it('other bad values are one-line OptionsErrors', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ seeds: [] }, 'at least one seed URL is needed'],
      [{ concurrency: 1.5 }, 'concurrency must be a whole number, got 1.5'],
      [{ timeoutMs: Number.NaN }, 'timeout must be a number'],
      [{ rate: 0 }, 'rate must be a positive number, got 0'],
      [{ maxTimeSeconds: 0 }, 'max-time must be a positive number of seconds, got 0'],
      // Durations a timer cannot hold (Node fires a longer setTimeout at once): refused, not "no timeout".
      [{ settleTimeoutMs: 99_999_999_999 }, 'settle-timeout must be at most 2147483647 ms, got 99999999999'],
      [{ timeoutMs: 2_147_483_648 }, 'timeout must be at most 2147483647 ms, got 2147483648'],
      [{ maxTimeSeconds: 99_999_999_999 }, 'max-time must be at most 2147483 s, got 99999999999'],
      [{ proxy: 'ftp://x' }, '--proxy must be a proxy server URL such as http://proxy:3128 or socks5://127.0.0.1:1080, got "ftp://x"'],
    ];
    for (const [o, message] of cases) expect(() => resolveOptions({ seeds: SEEDS, ...o })).toThrow(new OptionsError(message));
  });

  it('the CLI with no flags gives the library its defaults (flag defaults, units and mapping agree)', async () => {
    const { flags } = await Parser.parse([], { flags: Crawl.flags, args: {}, strict: false });
    const f = flags as CrawlFlags;
    expect(resolveOptions(crawlOptionsOf(f, SEEDS, null))).toEqual(resolved);
    const r = reportingOf(f, null, null);
    expect({ failOn: r.failOn, slowMs: r.slowMs }).toEqual({ failOn: DEFAULT_FAIL_ON, slowMs: CLI_OPTIONS.slowMs.default });
    expect(frontierChoiceOf(f)).toEqual({ state: null, redis: null, crawlId: null, force: false, leaseTtlMs: DEFAULT_LEASE_TTL_MS, redisRetryMs: DEFAULT_REDIS_RETRY_MS });
  });

  it('flag values in seconds reach the library in ms', async () => {
    const { flags } = await Parser.parse(['--max-retry-after', '7', '--lease-ttl', '9', '--redis-timeout', '4'], { flags: Crawl.flags, args: {}, strict: false });
    const f = flags as CrawlFlags;
    expect(resolveOptions(crawlOptionsOf(f, SEEDS, null)).maxRetryAfterMs).toBe(7_000);
    expect(frontierChoiceOf(f)).toMatchObject({ leaseTtlMs: 9_000, redisRetryMs: 4_000 });
  });
});

describe('documented defaults agree with the declarations', () => {
  it('every CrawlOptions option has a TSDoc @default saying the declared default', () => {
    const docs = documentedDefaults('src/crawl/options.ts', 'CrawlOptions');
    const wrong = Object.entries(CRAWL_OPTIONS)
      .map(([key, spec]) => ({ key, documented: docs.get(key), declared: defaultTextOf(spec, 'tsdoc') }))
      .filter((x) => !says(x.documented, x.declared));
    expect(wrong).toEqual([]);
  });

  it('defaults documented in other modules say the declared ones', () => {
    const checks: [file: string, iface: string, member: string, declared: string][] = [
      ['src/report/audit.ts', 'AuditOptions', 'slowMs', String(CLI_OPTIONS.slowMs.default)],
      ['src/browser/click-options.ts', 'ClickOptions', 'limit', String(CRAWL_OPTIONS.clickLimit.default)],
      ['src/browser/click-options.ts', 'ClickOptions', 'repeat', String(CRAWL_OPTIONS.clickRepeat.default)],
      ['src/browser/click-options.ts', 'ClickOptions', 'clickWaitMs', String(CRAWL_LIMITS.clickWaitMs)],
      ['src/browser/click-options.ts', 'ClickOptions', 'maxRevealDepth', String(CRAWL_LIMITS.maxRevealDepth)],
      ['src/browser/scroll.ts', 'ScrollOptions', 'maxSteps', String(CRAWL_OPTIONS.scrollLimit.default)],
    ];
    const wrong = checks
      .map(([file, iface, member, declared]) => ({ where: `${file} ${iface}.${member}`, documented: documentedDefaults(file, iface).get(member), declared }))
      .filter((x) => !says(x.documented, x.declared));
    expect(wrong).toEqual([]);
  });

  it("the browser's default axe-core tags (DEFAULT_A11Y_TAGS, below the crawl's layer) are the declared --a11y-tags", () => {
    expect([...DEFAULT_A11Y_TAGS]).toEqual([...CRAWL_OPTIONS.a11yTags.default]);
  });

  it("defaults named in the prose of README and docs/ (\"`--retries` (default 2)\", \"(default `--click auto`)\" …) are the declared ones", () => {
    const docs = fs.readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md') && `docs/${f}` !== FLAGS_DOC);
    const prose = ['README.md', ...docs.map((f) => `docs/${f}`)].map((f) => fs.readFileSync(path.join(REPO, f), 'utf8')).join('\n');
    const patterns = [
      /`--([a-z0-9-]+)`(?: times)? \(default ([^)\s]+)(?: s)?\)/g,
      /`--([a-z0-9-]+)`, default ([^\s)]+)/g,
      /\(default `--([a-z0-9-]+) ([^`]+)`\)/g,
      /`--([a-z0-9-]+) ([^`\s]+)` \(default\)/g,
    ];
    const mentions = patterns.flatMap((re) => [...prose.matchAll(re)].map((m) => ({ flag: m[1]!, says: m[2]! })));
    expect(mentions.length).toBeGreaterThanOrEqual(6);
    const wrong = mentions
      .map((m) => {
        const spec = declarationOf((Crawl.flags as Record<string, unknown>)[m.flag]);
        return { ...m, declared: spec ? String(flagDefaultOf(spec)) : '(no such flag)' };
      })
      .filter((m) => m.says !== m.declared);
    expect(wrong).toEqual([]);
  });

  it('the table lists every flag of crawl once, with its declared default', () => {
    const table = renderFlagTable(Crawl);
    for (const [name, flag] of Object.entries(Crawl.flags)) {
      const spec = declarationOf(flag)!;
      const flagCell = (row: string): string => row.split(' | ')[0] ?? '';
      const rows = table.split('\n').filter((l) => new RegExp(`--(\\[no-\\])?${name}[ \`]`).test(flagCell(l)));
      expect(rows.length, `--${name}`).toBe(1);
      expect(rows[0]!.split(' | ')[1], `--${name}`).toBe(defaultTextOf(spec, 'readme').replace(/\|/g, '\\|'));
    }
  });
});

describe('a seed its own exclude patterns keep out is refused', () => {
  const refusal = (o: Parameters<typeof resolveOptions>[0]): string | null => {
    try {
      resolveOptions(o);
      return null;
    } catch (err) {
      return err instanceof OptionsError ? err.message : `not an OptionsError: ${String(err)}`;
    }
  };
  it('by a glob or a /regex/, matched on the canonical URL; seeds the patterns miss go on', () => {
    expect(refusal({ seeds: ['https://a.test/admin/'], exclude: ['**/admin/**'] })).toBe(
      'seed https://a.test/admin/ matches --exclude "**/admin/**": an excluded URL is never crawled (drop the seed or narrow the pattern)',
    );
    // Canonical: the default port and the fragment go before matching.
    expect(refusal({ seeds: ['https://a.test/', 'https://a.test:443/report.PDF#p2'], exclude: ['/\\.pdf$/i'] })).toBe(
      'seed https://a.test:443/report.PDF#p2 matches --exclude "/\\\\.pdf$/i": an excluded URL is never crawled (drop the seed or narrow the pattern)',
    );
    expect(refusal({ seeds: ['https://a.test/docs/'], exclude: ['**/admin/**', '/\\.pdf$/i'] })).toBeNull();
    expect(refusal({ seeds: ['https://a.test/admin/'] })).toBeNull();
  });
});
