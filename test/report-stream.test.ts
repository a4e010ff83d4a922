import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordsFile } from '../src/cli/records-file.js';
import { blankRecord, type PageRecord } from '../src/model/record.js';
import { audit } from '../src/report/audit.js';
import { FORMATTERS, parseReportSpec, writeReport, type ReportInput } from '../src/report/formats.js';
import { JsonlRecordSource } from '../src/report/jsonl-source.js';
import { Multiplexer } from '../src/report/multiplexer.js';
import { SummaryCounter } from '../src/report/summary.js';
import { buildRecords, page, u } from './helpers/report-fixture.js';

// Reports are written from records read back from a JSON Lines file, piece by piece: the same
// bytes as from an array, in a few passes, and never as one string.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-stream-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeJsonl(name: string, records: readonly PageRecord[]): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  return file;
}

/** Records as the array, and `passes` counting how often they were read (an iteration that reads a first record). */
function counted(records: readonly PageRecord[]): { source: Iterable<PageRecord>; passes: () => number } {
  let passes = 0;
  return {
    source: {
      [Symbol.iterator]: () => {
        const it = records[Symbol.iterator]();
        let started = false;
        return {
          next: () => {
            if (!started) passes++;
            started = true;
            return it.next();
          },
        };
      },
    },
    passes: () => passes,
  };
}

function inputOf(records: Iterable<PageRecord>, all: readonly PageRecord[]): ReportInput {
  const counter = new SummaryCounter();
  for (const r of all) counter.add(r);
  const summary = counter.snapshot(4321, 'done', new Set([u('/about'), u('/missing')]));
  return { records, summary, audit: audit(records, { ignore: [/\/timeout$/] }), failOn: ['broken-link', 'server-error'], screenshotsDir: '/tmp/shots' };
}

/** Many pages, each linking to the next two; half of them lack a description, a few are broken, titles repeat. */
function site(n: number): PageRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const next = [i + 1, i + 2].filter((k) => k < n).map((k) => u(`/p/${k}`));
    return page(`/p/${i}`, {
      status: i % 97 === 96 ? 404 : 200,
      meta: { description: i % 2 ? 'd' : null, canonical: null, h1Count: 1 },
      title: `Page ${i % 500}`,
      links: next,
      linkDetails: next.map((url) => ({ url, text: 'next', source: 'anchor', nofollow: false })),
    }, i === 0 ? null : `/p/${i - 1}`);
  });
}

describe('JsonlRecordSource', () => {
  it('reads every record again at each iteration, across read buffers, skipping blank and torn lines', () => {
    // Lines far longer than a read buffer, a multi-byte character at every offset.
    const records = Array.from({ length: 40 }, (_, i) => ({ ...blankRecord(u(`/p/${i}`), null, 1, u('/')), title: `é🎉${'x'.repeat(i * 20_000)}` }));
    const file = path.join(tmp, 'long.jsonl');
    fs.writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n\n')}\n{"url":"torn`);
    const src = new JsonlRecordSource(file);
    const titles = (): string[] => [...src].map((r) => r.title ?? '');
    expect(titles()).toEqual(records.map((r) => r.title));
    expect(titles()).toEqual(records.map((r) => r.title));
  });

  it('short records cut at every offset of the 64 KiB read buffer come out whole, in order', () => {
    // ~1 MB of records of varying length: the buffer's end falls inside a record (and inside a
    // multi-byte character) many times, and the bytes left over are carried to the next read.
    const records = Array.from({ length: 3_000 }, (_, i) => ({ ...blankRecord(u(`/p/${i}`), null, 1, u('/')), title: `${i} ${'é🎉'.repeat(i % 37)}` }));
    const file = path.join(tmp, 'short.jsonl');
    fs.writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
    expect(fs.statSync(file).size).toBeGreaterThan(16 * 64 * 1024);
    const read = [...new JsonlRecordSource(file)];
    expect(read.map((r) => r.title)).toEqual(records.map((r) => r.title));
    expect(read.map((r) => r.url)).toEqual(records.map((r) => r.url));
  });

  it('a line that is not a record is an error naming the file and line', () => {
    const file = path.join(tmp, 'bad.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(blankRecord(u('/'), null, 0, null))}\n[1,2]\n`);
    expect(() => [...new JsonlRecordSource(file)]).toThrow(`${file}: line 2 is not a JSON record`);
  });
});

describe('formats from a JSON Lines file', () => {
  const records = buildRecords();
  const file = writeJsonl('fixture.jsonl', records);
  const fromArray = inputOf(records, records);
  const fromFile = inputOf(new JsonlRecordSource(file), records);

  it('the audit is the same, read from the file in two passes (three with fragment links)', () => {
    expect(fromFile.audit).toEqual(fromArray.audit);
    const withFragments = counted(records);
    audit(withFragments.source);
    expect(withFragments.passes()).toBe(3);
    const plain = records.map((r) => ({ ...r, fragmentLinks: [] }));
    const noFragments = counted(plain);
    expect(audit(noFragments.source)).toEqual(audit(plain));
    expect(noFragments.passes()).toBe(2);
  });

  it('a one-shot iterator (a generator) is read once and audited like the array', () => {
    function* once(): Generator<PageRecord> {
      yield* records;
    }
    expect(audit(once(), { ignore: [/\/timeout$/] })).toEqual(fromArray.audit);
  });

  it('every format gives the same bytes as from the array', () => {
    for (const [name, f] of Object.entries(FORMATTERS)) {
      expect({ name, text: f.render(fromFile, '/tmp/r/report') }).toEqual({ name, text: f.render(fromArray, '/tmp/r/report') });
    }
  });

  it('orphans are read back from the source instead of kept', () => {
    const kept = new SummaryCounter();
    const readBack = new SummaryCounter(new JsonlRecordSource(file));
    for (const r of records) {
      kept.add(r);
      readBack.add(r);
    }
    const sitemap = new Set([u('/about'), u('/missing'), u('/new-place'), u('/nowhere')]);
    const a = kept.snapshot(1, 'done', sitemap);
    expect(readBack.snapshot(1, 'done', sitemap)).toEqual(a);
    expect(a.orphans).toEqual([u('/new-place')].filter((x) => !records.some((r) => r.links.includes(x))));
  });
});

describe('parseReportSpec', () => {
  it('an unknown format is a usage error that names a near format, and only a near one', () => {
    expect(() => parseReportSpec('htm:x.html')).toThrow('unknown report format "htm" (did you mean "html"?) (known: jsonl, json, csv, html, junit, sitemap, markdown)');
    expect(() => parseReportSpec('pdf')).toThrow('unknown report format "pdf" (known: jsonl, json, csv, html, junit, sitemap, markdown)');
    // A comma list (as --fail-on takes) is one report per --report.
    expect(() => parseReportSpec('html,csv')).toThrow('--report takes one format: give it once per report, each with its PATH (--report html:index.html --report csv:pages.csv)');
    expect(() => parseReportSpec('html,pdf')).toThrow('unknown report format "html,pdf" (known: jsonl, json, csv, html, junit, sitemap, markdown)');
    expect(parseReportSpec('CSV')).toEqual({ format: 'csv', path: null });
  });
});

describe('formats write piece by piece', () => {
  const records = site(3000);
  const input = inputOf(records, records);

  it('no write is more than a small part of the report (page rows are streamed)', () => {
    for (const name of ['jsonl', 'json', 'csv', 'html', 'junit', 'sitemap']) {
      const sizes: number[] = [];
      FORMATTERS[name]!.write(input, { write: (t) => void sizes.push(t.length) }, null);
      const total = sizes.reduce((a, b) => a + b, 0);
      expect({ name, parts: sizes.length >= 10, largest: Math.max(...sizes) < total / 10 }).toEqual({ name, parts: true, largest: true });
    }
  });

  it('writeReport hands a report without a path to stdout in chunks of about 64 KiB', () => {
    const chunks: string[] = [];
    writeReport(parseReportSpec('html'), input, { write: (t: string) => chunks.push(t) });
    expect(chunks.join('')).toBe(FORMATTERS.html!.render(input, null));
    expect(chunks.length).toBeGreaterThan(5);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(80 * 1024);
  });
});

describe('RecordsFile: where the CLI reads the records back from', () => {
  it('--out when this run truncated it; a spool (removed at the end) when it appends, when a report overwrites it, or when it is no regular file', () => {
    const out = path.join(tmp, 'out.jsonl');
    fs.writeFileSync(out, '');
    const own = RecordsFile.open({ file: out, append: false }, [parseReportSpec(`jsonl:${out}`)]);
    expect(own.file).toBe(out);
    expect(own.spool).toBeNull();
    const spools = [
      RecordsFile.open({ file: out, append: true }, []),
      RecordsFile.open({ file: out, append: false }, [parseReportSpec(`csv:${out}`)]),
      RecordsFile.open({ file: '/dev/null', append: false }, []),
      RecordsFile.open(null, []),
    ];
    for (const s of spools) {
      expect(s.spool).not.toBeNull();
      expect(path.basename(s.file)).toBe('records.jsonl');
      s.spool!.write(blankRecord(u('/x'), null, 0, null));
      s.spool!.close();
      expect([...s.source].map((r) => r.url)).toEqual([u('/x')]);
      s.remove();
      expect(fs.existsSync(path.dirname(s.file))).toBe(false);
    }
  });
});

describe('RecordsFile: spools left by crashed runs', () => {
  it('the next spooling run removes the spool folders of processes that are gone, and only those', () => {
    let dead = 4_000_000;
    const isAlive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    };
    while (isAlive(dead)) dead++;
    const mk = (pid: number): string => fs.mkdtempSync(path.join(os.tmpdir(), `spacrawl-records-${pid}-`));
    const gone = mk(dead);
    fs.writeFileSync(path.join(gone, 'records.jsonl'), '{}\n');
    const running = mk(process.ppid);
    const mine = mk(process.pid);
    const s = RecordsFile.open(null, []);
    s.remove();
    expect([fs.existsSync(gone), fs.existsSync(running), fs.existsSync(mine)]).toEqual([false, true, true]);
    fs.rmSync(running, { recursive: true });
    fs.rmSync(mine, { recursive: true });
  });
});

describe('Multiplexer', () => {
  it('gives every event to every reporter in order; onRecordsEnd reaches all even when one throws', () => {
    const seen: string[] = [];
    const mux = new Multiplexer([
      { onRecord: (r) => seen.push(`a ${r.url}`), onRecordsEnd: () => void seen.push('a end') },
      {
        onRecord: (r) => seen.push(`b ${r.url}`),
        onRecordsEnd: () => {
          throw new Error('disk full');
        },
      },
      { onRecordsEnd: () => void seen.push('c end'), onEnd: (e) => void seen.push(`c ${e.summary.pages}`) },
    ]);
    mux.onRecord(blankRecord(u('/1'), null, 0, null));
    expect(() => mux.onRecordsEnd()).toThrow('disk full');
    mux.onEnd(inputOf([], []));
    expect(seen).toEqual([`a ${u('/1')}`, `b ${u('/1')}`, 'a end', 'c end', 'c 0']);
  });
});
