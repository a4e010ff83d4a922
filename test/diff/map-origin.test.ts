import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVersionedSite, type VersionedSite } from '../../fixtures/sites/versions.js';
import type { DiffReport } from '../../src/diff/types.js';
import { runInProcess, type CliRun } from '../helpers/cli.js';
import { crawlA, crawlB, O } from './fixture-records.js';
import { writeJsonl } from './helpers.js';

// `--map-origin OLD=NEW`: a baseline crawled on one origin (production, https://site.test here)
// compared with a crawl of another (a preview on 127.0.0.1). The diff runs on recorded files; the
// crawl runs in-process against the two-version fixture site.

const PREVIEW = 'http://127.0.0.1:4001';
let tmp: string;
let site: VersionedSite;
const file = (name: string): string => path.join(tmp, name);

/** Records moved to another origin, as a crawl of the same site served there would write them. */
const onOrigin = (records: object[], origin: string): object[] => records.map((r) => JSON.parse(JSON.stringify(r).replaceAll(O, origin)) as object);

/** Exit 2, exactly one line on stderr, nothing on stdout. */
function expectUsage(r: CliRun, line: string): void {
  expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: '', stderr: `spacrawl: ${line}\n` });
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-map-origin-'));
  writeJsonl(file('a.jsonl'), crawlA());
  writeJsonl(file('b.jsonl'), crawlB());
  writeJsonl(file('b-preview.jsonl'), onOrigin(crawlB(), PREVIEW));
  site = await startVersionedSite();
});

afterAll(async () => {
  await site?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('diff --map-origin', () => {
  it('production → preview with --map-origin: the same diff as on one origin, under the preview origin', async () => {
    const same = await runInProcess(['diff', file('a.jsonl'), file('b.jsonl'), '--json', '--fail-on', 'broken-link']);
    const mapped = await runInProcess(['diff', file('a.jsonl'), file('b-preview.jsonl'), '--json', '--fail-on', 'broken-link', '--map-origin', `${O}=${PREVIEW}`]);
    expect([same.code, mapped.code]).toEqual([1, 1]);
    const d1 = JSON.parse(same.stdout) as DiffReport;
    const d2 = JSON.parse(mapped.stdout) as DiffReport;
    expect(d2.pages).toEqual({
      added: [{ url: `${PREVIEW}/news`, status: 200, error: null, title: 'News', otherSkipped: null }],
      removed: [{ url: `${PREVIEW}/old`, status: 200, error: null, title: 'Old page', otherSkipped: null }],
    });
    const { old: _o1, new: _n1, ...rest1 } = d1;
    const { old: _o2, new: _n2, ...rest2 } = d2;
    expect(rest2).toEqual(onOrigin([rest1], PREVIEW)[0]);
    expect(d2.old.seeds).toEqual([`${PREVIEW}/`]);
    // The summary on stderr is the same but for the file name.
    expect(mapped.stderr).toBe(same.stderr.replace(`→ ${file('b.jsonl')}`, `→ ${file('b-preview.jsonl')}`));
  });

  it('without --map-origin, two origins are refused with one line that names the flag; a malformed value is one line, exit 2', async () => {
    const r = await runInProcess(['diff', file('a.jsonl'), file('b-preview.jsonl')]);
    expectUsage(
      r,
      `${file('a.jsonl')} and ${file('b-preview.jsonl')} are crawls of different sites (${O} vs ${PREVIEW}): if it is the same site on another origin, pass --map-origin ${O}=${PREVIEW}; else --force to compare them anyway`,
    );
    const expected = 'expected OLD=NEW, two origins, e.g. https://example.com=http://127.0.0.1:4001';
    expectUsage(await runInProcess(['diff', file('a.jsonl'), file('b-preview.jsonl'), '--map-origin', 'foo']), `--map-origin "foo": ${expected}`);
    expectUsage(await runInProcess(['diff', file('a.jsonl'), file('b-preview.jsonl'), '--map-origin', 'http://a=']), `--map-origin "http://a=": NEW is empty: ${expected}`);
  });

  it('a --map-origin given the wrong way round is named: it maps no origin of the baseline', async () => {
    const r = await runInProcess(['diff', file('a.jsonl'), file('b-preview.jsonl'), '--map-origin', `${PREVIEW}=${O}`]);
    expectUsage(
      r,
      `${file('a.jsonl')} and ${file('b-preview.jsonl')} are crawls of different sites (${O} vs ${PREVIEW}): --map-origin ${PREVIEW}=${O} maps no origin of the baseline (OLD is the baseline's origin, NEW this crawl's): pass --map-origin ${O}=${PREVIEW}; else --force to compare them anyway`,
    );
  });
});

describe('crawl --baseline --map-origin', () => {
  it('a production baseline and a crawl of the preview: with the flag the pages are matched (none new), without it exit 2 before any request', async () => {
    site.setVersion('B');
    const seed = `${site.server.origin}/`;
    const common = ['crawl', seed, '--baseline', file('b.jsonl'), '--concurrency', '1', '--no-progress', '--fail-on', 'new'];
    const before = site.server.log.length;
    const refused = await runInProcess([...common, '--output-dir', file('refused')]);
    expectUsage(
      refused,
      `--baseline ${file('b.jsonl')} and this crawl are crawls of different sites (${O} vs ${site.server.origin}): a baseline is an earlier crawl of the same site; if it is the same site on another origin, pass --map-origin ${O}=${site.server.origin}`,
    );
    expect([site.server.log.length - before, fs.existsSync(file('refused'))]).toEqual([0, false]);

    const r = await runInProcess([...common, '--output-dir', file('mapped'), '--map-origin', `${O}=${site.server.origin}`]);
    const d = JSON.parse(fs.readFileSync(file('mapped/diff.json'), 'utf8')) as DiffReport;
    expect({ added: d.pages.added, removed: d.pages.removed, statusChanges: d.statusChanges, titleChanges: d.titleChanges, redirectChanges: d.redirectChanges, newFindings: d.findings.new }).toEqual({
      added: [],
      removed: [],
      statusChanges: [],
      titleChanges: [],
      redirectChanges: [],
      newFindings: [],
    });
    expect(d.findings.unchanged.filter((f) => f.rule === 'broken-link').map((f) => [f.page, f.url])).toEqual([
      [`${site.server.origin}/about`, `${site.server.origin}/guide`],
      [`${site.server.origin}/`, `${site.server.origin}/promo`],
    ]);
    expect(r.code).toBe(0);
  });

  it('a malformed --map-origin, or one without --baseline, is exit 2 with one line before anything is crawled', async () => {
    const seed = `${site.server.origin}/`;
    const before = site.server.log.length;
    const expected = 'expected OLD=NEW, two origins, e.g. https://example.com=http://127.0.0.1:4001';
    expectUsage(await runInProcess(['crawl', seed, '--baseline', file('b.jsonl'), '--map-origin', 'foo']), `--map-origin "foo": ${expected}`);
    expectUsage(await runInProcess(['crawl', seed, '--baseline', file('b.jsonl'), '--map-origin', 'http://a=']), `--map-origin "http://a=": NEW is empty: ${expected}`);
    expectUsage(await runInProcess(['crawl', seed, '--map-origin', `${O}=${site.server.origin}`]), "--map-origin needs --baseline (it maps the baseline's URLs)");
    expect(site.server.log.length - before).toBe(0);
  });
});
