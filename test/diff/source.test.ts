import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { diffCrawls } from '../../src/diff/diff.js';
import { DiffInputError } from '../../src/diff/errors.js';
import { memorySource, openRecordSource, type RecordSource } from '../../src/diff/source.js';
import { isPage, type PageRecord } from '../../src/model/record.js';
import { crawlA, crawlB, EXPECTED_NEW_FINDINGS, expectedUrlChanges, O, page } from './fixture-records.js';
import { identity, urlChanges, writeJsonl, writeStateFile } from './helpers.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-diff-src-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const at = (name: string): string => path.join(tmp, name);

async function all(s: RecordSource): Promise<PageRecord[]> {
  const out: PageRecord[] = [];
  for await (const r of s.records()) out.push(r);
  return out;
}

/** The error `openRecordSource` throws for `input`. */
async function refusal(input: string): Promise<Error> {
  const err = await openRecordSource(input).then(
    () => null,
    (e: unknown) => e as Error,
  );
  if (!err) throw new Error(`${input} was accepted`);
  return err;
}

/**
 * A record as an older spacrawl wrote it: only the fields of DESIGN.md's first PageRecord table
 * (no redirect, soft404Reason, meta, linkChecks, anchors, serverWaitMs …).
 */
function oldSchema(r: PageRecord): Record<string, unknown> {
  const keep = ['url', 'requestedUrl', 'finalUrl', 'redirectChain', 'status', 'contentType', 'title', 'depth', 'referrer', 'links', 'linkDetails', 'externalLinks', 'settled', 'consoleErrors', 'pageErrors', 'failedRequests', 'dialogs', 'screenshot', 'attempts', 'soft404', 'error', 'skipped'];
  const out: Record<string, unknown> = {};
  for (const k of keep) out[k] = r[k as keyof PageRecord];
  const { ttfb, domContentLoaded, load, settledMs, total } = r.timings;
  out.timings = { ttfb, domContentLoaded, load, settledMs, total };
  return out;
}

describe('opening a side', () => {
  it('reads the JSON Lines of --out, an --output-dir folder and a --state file alike', async () => {
    writeJsonl(at('a.jsonl'), crawlA());
    fs.mkdirSync(at('report'));
    writeJsonl(path.join(at('report'), 'pages.jsonl'), crawlA());
    await writeStateFile(at('a.db'), crawlA());
    const want = crawlA()
      .map((r) => r.url)
      .sort();
    for (const input of [at('a.jsonl'), at('report'), at('a.db')]) {
      const s = await openRecordSource(input);
      try {
        expect((await all(s)).map((r) => r.url).sort()).toEqual(want);
        // Re-readable: a second pass gives the same records.
        expect((await all(s)).length).toBe(8);
      } finally {
        await s.close();
      }
    }
    const state = await openRecordSource(at('a.db'));
    const jsonl = await openRecordSource(at('a.jsonl'));
    try {
      const d = await diffCrawls(state, jsonl);
      expect(d.findings.new).toEqual([]);
      expect(d.findings.fixed).toEqual([]);
      expect(d.findings.unchanged.map(identity)).toEqual(['missing-description /docs/b → /docs/b']);
      expect(d.pages).toEqual({ added: [], removed: [] });
    } finally {
      await state.close();
    }
  });

  it('reads records of an older schema (fields missing) and diffs them', async () => {
    writeJsonl(at('old-a.jsonl'), crawlA().map(oldSchema));
    writeJsonl(at('old-b.jsonl'), crawlB().map(oldSchema));
    const a = await openRecordSource(at('old-a.jsonl'));
    const b = await openRecordSource(at('old-b.jsonl'));
    const records = await all(a);
    expect(records.find((r) => r.url === `${O}/about`)).toMatchObject({ redirect: false, soft404Reason: null, linkChecks: [], meta: { description: null, h1Count: 0 } });
    expect(records.find((r) => r.url === `${O}/about`)!.timings.serverWaitMs).toBeNull();
    const d = await diffCrawls(a, b);
    // Without `redirect`, /go was a page with a redirect chain in that schema; its target still changed.
    const want = expectedUrlChanges(O);
    expect(urlChanges(d)).toEqual({ ...want, soft404s: [{ url: `${O}/promo`, reason: null }] });
    expect(d.findings.new.filter((f) => f.rule === 'broken-link').map(identity)).toEqual(EXPECTED_NEW_FINDINGS);
  });

  it('a --state file holding records of an older schema is read; one of a newer or unknown state schema is refused with one line', async () => {
    await writeStateFile(at('old-records.db'), crawlA().map(oldSchema) as unknown as PageRecord[]);
    const a = await openRecordSource(at('old-records.db'));
    try {
      const d = await diffCrawls(a, memorySource('b', crawlB().map(oldSchema) as unknown as PageRecord[]));
      expect(urlChanges(d)).toEqual({ ...expectedUrlChanges(O), soft404s: [{ url: `${O}/promo`, reason: null }] });
      expect(d.findings.new.filter((f) => f.rule === 'broken-link').map(identity)).toEqual(EXPECTED_NEW_FINDINGS);
    } finally {
      await a.close();
    }
    const cases: [string, string][] = [
      ['3', 'was written by a newer spacrawl (state schema 3; this version reads up to 2)'],
      ['0', 'has an unknown state schema (0)'],
    ];
    for (const [schema, why] of cases) {
      const file = at(`schema-${schema}.db`);
      await writeStateFile(file, crawlA());
      const db = new Database(file);
      db.prepare("UPDATE meta SET value = ? WHERE key = 'schema'").run(schema);
      db.close();
      const err = await refusal(file);
      expect(err.message).toBe(`state file ${file} ${why}`);
    }
  });

  it('skips lines that are not records (a torn last line) and counts them', async () => {
    const lines = crawlA().map((r) => JSON.stringify(r));
    fs.writeFileSync(at('torn.jsonl'), `${lines.join('\n')}\n{"url":"https://site.test/half","sta`);
    const s = await openRecordSource(at('torn.jsonl'));
    expect((await all(s)).filter(isPage)).toHaveLength(7);
    expect(s.skippedLines()).toBe(1);
  });

  it('refuses a missing file, a folder without pages.jsonl, and files that are not a crawl, each with one line', async () => {
    fs.mkdirSync(at('empty-dir'));
    fs.writeFileSync(at('empty.jsonl'), '');
    fs.writeFileSync(at('report.json'), JSON.stringify({ schemaVersion: 1, summary: { pages: 3 }, pages: crawlA() }, null, 2));
    fs.writeFileSync(at('list.jsonl'), '{"name":"a"}\n[1,2]\n"url"\n');
    fs.writeFileSync(at('image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    const foreign = new Database(at('foreign.db'));
    foreign.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES (\'ann\')');
    foreign.close();
    const empty = new Database(at('empty.db'));
    empty.pragma('user_version = 1'); // writes the header, no table
    empty.close();
    const cases: [string, string, string][] = [
      [at('nope.jsonl'), 'missing-input', `${at('nope.jsonl')}: no such file or folder`],
      [at('empty-dir'), 'missing-input', `${at('empty-dir')} is a folder without pages.jsonl (expected the JSON Lines of --out, a --state file or an --output-dir folder)`],
      [at('empty.jsonl'), 'not-a-crawl', `${at('empty.jsonl')} is not a crawl: the file is empty (expected the JSON Lines of --out, a --state file or an --output-dir folder)`],
      [at('report.json'), 'not-a-crawl', `${at('report.json')} is not a crawl: no JSON record with a "url" (expected the JSON Lines of --out, a --state file or an --output-dir folder)`],
      [at('list.jsonl'), 'not-a-crawl', `${at('list.jsonl')} is not a crawl: no JSON record with a "url" (expected the JSON Lines of --out, a --state file or an --output-dir folder)`],
      [at('image.png'), 'not-a-crawl', `${at('image.png')} is not a crawl: a binary file (expected the JSON Lines of --out, a --state file or an --output-dir folder)`],
      [at('empty.db'), 'not-a-crawl', `${at('empty.db')} is not a crawl: an empty SQLite database`],
    ];
    for (const [input, code, message] of cases) {
      const err = await refusal(input);
      expect([err.constructor.name, (err as DiffInputError).code, err.message]).toEqual(['DiffInputError', code, message]);
    }
    const err = await refusal(at('foreign.db'));
    expect(err.message).toBe(`state file ${at('foreign.db')} is a SQLite database but not a spacrawl state file`);
    // Refused without a change: the foreign database still has only its own table.
    const check = new Database(at('foreign.db'), { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all()).toEqual(['users']);
    check.close();
  });

  it('reads a 20,000-page crawl on each side', async () => {
    const big = (titleOf: (i: number) => string, extra: number[]): PageRecord[] => {
      const pages = [page('/', 'Home', [['/p0', 'p0']])];
      for (const i of [...Array.from({ length: 19_999 }, (_, k) => k), ...extra]) pages.push({ ...page(`/p${i}`, titleOf(i), [[`/p${i + 1}`, `p${i + 1}`]]), depth: 1 });
      return pages;
    };
    writeJsonl(at('big-a.jsonl'), big((i) => `Page ${i}`, []));
    writeJsonl(at('big-b.jsonl'), big((i) => (i === 777 ? 'Renamed' : `Page ${i}`), [20_000]));
    const heapBefore = process.memoryUsage().heapUsed;
    const t0 = Date.now();
    const d = await diffCrawls(await openRecordSource(at('big-a.jsonl')), await openRecordSource(at('big-b.jsonl')));
    const ms = Date.now() - t0;
    expect(d.old.pages).toBe(20_000);
    expect(d.new.pages).toBe(20_001);
    expect(d.titleChanges).toEqual([{ url: `${O}/p777`, old: 'Page 777', new: 'Renamed' }]);
    expect(d.pages.added.map((p) => p.url)).toEqual([`${O}/p20000`]);
    expect(d.findings.new).toEqual([]);
    console.log(`20,000-page diff: ${ms} ms, heap +${Math.round((process.memoryUsage().heapUsed - heapBefore) / 1e6)} MB`);
  });
});
