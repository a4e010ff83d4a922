import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, spawnCli } from '../helpers/cli.js';
import { crawlA, crawlB } from './fixture-records.js';
import { writeJsonl, writeStateFile } from './helpers.js';

// `diff` and `export` write through the command's io: run in-process (runCli with in-memory
// streams) they give exactly what the real process prints, and nothing reaches the test
// process's own stdout.

let tmp: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-io-'));
  writeJsonl(path.join(tmp, 'a.jsonl'), crawlA());
  writeJsonl(path.join(tmp, 'b.jsonl'), crawlB());
  await writeStateFile(path.join(tmp, 'a.db'), crawlA());
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('diff and export through the in-process io', () => {
  it('diff: the report without PATH on io.stdout, the summary on io.stderr, exit 1 for new broken links, as the process does', async () => {
    const args = ['diff', path.join(tmp, 'a.jsonl'), path.join(tmp, 'b.jsonl'), '--report', 'markdown', '--fail-on', 'broken-link'];
    const inProcess = await runInProcess(args);
    const spawned = await spawnCli(args, { cwd: tmp });
    expect(spawned.code).toBe(1);
    expect(inProcess.code).toBe(1);
    expect(inProcess.stdout).toContain('broken-link');
    expect(inProcess.stdout).toBe(spawned.stdout);
    expect(inProcess.stderr).toBe(spawned.stderr);
  });

  it('diff: a missing side is one line on io.stderr and exit 2, nothing on io.stdout', async () => {
    const r = await runInProcess(['diff', path.join(tmp, 'a.jsonl'), path.join(tmp, 'nothing.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^spacrawl: .*nothing\.jsonl/);
  });

  it('export: the stored records as JSON Lines on io.stdout, one per record, and the count on io.stderr, as the process does', async () => {
    const args = ['export', '--state', path.join(tmp, 'a.db'), '--report', 'jsonl'];
    const r = await runInProcess(args);
    const spawned = await spawnCli(args, { cwd: tmp });
    expect(r.code).toBe(0);
    const urls = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { url: string }).url)
      .sort();
    expect(urls).toEqual(crawlA().map((x) => x.url).sort());
    // The count, then the crawl's time and end (`export` tells them since #19).
    expect(r.stderr).toMatch(new RegExp(`^exported ${urls.length} records \\(\\d+ pages\\) from .*a\\.db\ncrawl started [^\n]+; [\\d.]+ s of crawling\n$`));
    expect([r.stdout, r.stderr]).toEqual([spawned.stdout, spawned.stderr]);
  });
});
