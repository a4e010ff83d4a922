// Ctrl-C outside the crawl itself (issue #32, item 4.6): before the crawl has started, the run
// leaves at once and says nothing was crawled; after the crawl, while the baseline comparison and
// the reports are under way, the reports are still written whole. Real signals to a spawned
// `bin/run.js` (an in-process run has no default signal action to fall into).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVersionedSite, type VersionedSite } from '../fixtures/sites/versions.js';
import { blankRecord } from '../src/model/record.js';
import { lines, spawnCli } from './helpers/cli.js';

let tmp: string;
let site: VersionedSite;

/**
 * A server that accepts connections and never answers (a Redis that hangs): the crawl waits for
 * it before it starts. `connected` resolves at the first connection (the command is then past its
 * checks, opening its store).
 */
function silentServer(): Promise<{ server: net.Server; connected: Promise<void> }> {
  return new Promise((resolve) => {
    let onConnect: () => void = () => {};
    const connected = new Promise<void>((r) => (onConnect = r));
    const server = net.createServer(() => onConnect()).listen(0, '127.0.0.1', () => resolve({ server, connected }));
  });
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-interrupt-'));
  site = await startVersionedSite();
});

afterAll(async () => {
  await site?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('Ctrl-C outside the crawl', () => {
  it('before the crawl has started (waiting for Redis): exit 130 at once, one line, the --output-dir it made removed', async () => {
    const { server: silent, connected } = await silentServer();
    const port = (silent.address() as net.AddressInfo).port;
    const out = path.join(tmp, 'never', 'out');
    let signalAt = 0;
    const r = await spawnCli(['crawl', `${site.server.origin}/`, '--redis', `redis://127.0.0.1:${port}`, '--crawl-id', 'interrupted', '--redis-timeout', '60', '--output-dir', out], {
      cwd: tmp,
      onSpawn: (child) => {
        // Once the command talks to "Redis" (which never answers), it waits there.
        void connected.then(() => {
          signalAt = Date.now();
          child.kill('SIGINT');
        });
      },
    });
    expect({ code: r.code, signal: r.signal, stdout: r.stdout }).toEqual({ code: 130, signal: null, stdout: '' });
    expect(lines(r.stderr).at(-1)).toBe('spacrawl: SIGINT before the crawl started: nothing was crawled, no report written');
    silent.close();
    expect(signalAt).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(tmp, 'never'))).toBe(false);
  }, 60_000);

  it('after the last page, during the baseline comparison: exit 130, one line saying so, and every report is whole', async () => {
    // A baseline large enough that comparing with it takes a while (the same site: its seed, then many pages).
    const o = site.server.origin;
    const baseline = path.join(tmp, 'baseline.jsonl');
    const rows: string[] = [];
    for (let i = 0; i < 40_000; i++) {
      const r = { ...blankRecord(i === 0 ? `${o}/` : `${o}/old/${i}`, null, i === 0 ? 0 : 1, i === 0 ? null : `${o}/`), status: 200, title: `Old ${i}`, contentType: 'text/html', finalUrl: null, settled: true, attempts: 1 };
      rows.push(JSON.stringify(r));
    }
    fs.writeFileSync(baseline, `${rows.join('\n')}\n`);
    site.setVersion('A');
    const out = path.join(tmp, 'reports');
    let signalled = false;
    const r = await spawnCli(['crawl', `${o}/`, '--concurrency', '1', '--output-dir', out, '--baseline', baseline], {
      cwd: tmp,
      onSpawn: (child, stderrSoFar) => {
        const tick = setInterval(() => {
          // The 8th record (every URL of version A) is the last: the crawl ends right after it.
          if ((stderrSoFar().match(/^(\d{3}|ERR) /gm) ?? []).length < 8) return;
          clearInterval(tick);
          // Comparing with 40,000 records takes seconds: the signal comes while it runs (on a
          // very slow machine, maybe still while the crawl winds down: that path must keep the
          // reports whole too).
          setTimeout(() => {
            signalled = true;
            child.kill('SIGINT');
          }, 500);
        }, 20);
        child.on('close', () => clearInterval(tick));
      },
    });
    expect(signalled).toBe(true);
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null });
    const said = lines(r.stderr).filter((l) => l.startsWith('SIGINT'));
    expect([['SIGINT: the crawl has ended; writing the reports whole before exiting (press Ctrl-C again to leave without them)'], ['SIGINT: finishing pages in flight (press Ctrl-C again to quit at once)']]).toContainEqual(said);
    // Every report is there and whole.
    const read = (name: string): string => fs.readFileSync(path.join(out, name), 'utf8');
    const report = JSON.parse(read('report.json')) as { summary: { pages: number }; pages: unknown[] };
    expect(report.pages).toHaveLength(8);
    expect([XMLValidator.validate(read('junit.xml')), XMLValidator.validate(read('sitemap.xml'))]).toEqual([true, true]);
    expect(read('index.html').trimEnd().endsWith('</html>')).toBe(true);
    expect(parseCsv(read('pages.csv'), { columns: true })).toHaveLength(report.summary.pages + 1); // pages and the redirect record
    expect(read('pages.jsonl').trim().split('\n')).toHaveLength(8);
    expect(read('summary.md').length).toBeGreaterThan(0);
  }, 120_000);
});
