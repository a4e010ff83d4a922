import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { clock, colorEnabled, isCI, liveProgressEnabled, progressLine, TerminalLog, type LogEnv, type LogStream } from '../src/report/progress.js';
import { blankRecord, type PageRecord } from '../src/model/record.js';
import { emptyTimings } from '../src/model/observation.js';
import { runInProcess } from './helpers/cli.js';
const ANSI = /\u001b\[/;
/** Cursor movement and line erasing: what a redraw uses. */
const REDRAW = /\u001b\[(\d*[ABCDGK]|2K|\?25[lh])/;

/** A stream that collects what is written, pretending to be a terminal when `tty`. */
function sink(tty: boolean): { stream: LogStream; text: () => string } {
  const s = new PassThrough() as PassThrough & LogStream;
  let out = '';
  s.on('data', (c: Buffer) => (out += c.toString()));
  if (tty) {
    s.isTTY = true;
    s.columns = 120;
  }
  return { stream: s, text: () => out };
}

function page(p: string, patch: Partial<PageRecord> = {}): PageRecord {
  const r = blankRecord(`http://127.0.0.1:1${p}`, `http://127.0.0.1:1${p}`, 1, 'http://127.0.0.1:1/');
  return {
    ...r,
    finalUrl: r.url,
    status: 200,
    title: p,
    settled: true,
    attempts: 1,
    timings: { ...emptyTimings(), ttfb: 12, domContentLoaded: 30, load: 45, settledMs: 640, total: 700 },
    links: ['http://127.0.0.1:1/'],
    ...patch,
  };
}

const skipped = ((): PageRecord => {
  const r = blankRecord('http://127.0.0.1:1/private', 'http://127.0.0.1:1/private', 1, 'http://127.0.0.1:1/');
  r.skipped = 'robots';
  return r;
})();

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Wait until `ok()` holds (checked every 10 ms, at most `ms`): a busy machine may draw late. */
async function until(ok: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !ok() && Date.now() < end; ) await tick(10);
}

describe('mode decisions', () => {
  const tty = { isTTY: true } as LogStream;
  const pipe = {} as LogStream;
  it('draws the live line only on a TTY, without CI, --no-progress, --quiet or TERM=dumb', () => {
    expect(liveProgressEnabled(tty, {}, true, false)).toBe(true);
    expect(liveProgressEnabled(pipe, {}, true, false)).toBe(false);
    expect(liveProgressEnabled(tty, { CI: 'true' }, true, false)).toBe(false);
    expect(liveProgressEnabled(tty, { CI: '1' }, true, false)).toBe(false);
    expect(liveProgressEnabled(tty, { CI: 'false' }, true, false)).toBe(true);
    expect(liveProgressEnabled(tty, {}, false, false)).toBe(false);
    expect(liveProgressEnabled(tty, {}, true, true)).toBe(false);
    expect(liveProgressEnabled(tty, { TERM: 'dumb' }, true, false)).toBe(false);
    expect([isCI({}), isCI({ CI: '' }), isCI({ CI: 'woodpecker' })]).toEqual([false, false, true]);
  });

  it('colours a TTY unless NO_COLOR; FORCE_COLOR wins either way', () => {
    const cases: [LogStream, LogEnv, boolean][] = [
      [tty, {}, true],
      [pipe, {}, false],
      [tty, { NO_COLOR: '1' }, false],
      [tty, { NO_COLOR: '' }, true],
      [pipe, { FORCE_COLOR: '1' }, true],
      [pipe, { FORCE_COLOR: '' }, true],
      [tty, { FORCE_COLOR: '0' }, false],
      [tty, { FORCE_COLOR: 'false' }, false],
      [pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, true],
      [tty, { TERM: 'dumb' }, false],
    ];
    expect(cases.map(([s, env]) => colorEnabled(s, env))).toEqual(cases.map((c) => c[2]));
  });

  it('formats the live line: pages done / queued, pages/s, errors, elapsed', () => {
    expect(progressLine({ done: 42, queued: 17, errors: 1 }, 17_500)).toBe('42 pages done, 17 queued · 2.4 pages/s · 1 error · 0:17');
    expect(progressLine({ done: 1, queued: null, errors: 0 }, 0)).toBe('1 page done · 0.0 pages/s · 0 errors · 0:00');
    expect([clock(59_999), clock(61_000), clock(3_723_000)]).toEqual(['0:59', '1:01', '1:02:03']);
  });
});

describe('TerminalLog', () => {
  it('not a TTY: plain lines only, no ANSI codes, no redraws, even while progress runs', async () => {
    const out = sink(false);
    const log = new TerminalLog({ stream: out.stream, env: {}, intervalMs: 20 });
    log.start(() => ({ done: 1, queued: 2, errors: 0 }), Date.now());
    log.record(page('/a'), 'http://127.0.0.1:1');
    log.record(page('/gone', { status: 404 }), 'http://127.0.0.1:1');
    await tick(80);
    log.line('1 pages, 1 ok');
    log.stop();
    expect(log.live).toBe(false);
    expect(out.text()).toBe('200  /a  1 link  700 ms\n404  /gone  1 link  700 ms\n1 pages, 1 ok\n');
    expect(out.text()).not.toMatch(ANSI);
  });

  it('a TTY under CI: plain lines, no ANSI codes', async () => {
    const out = sink(true);
    const log = new TerminalLog({ stream: out.stream, env: { CI: 'true', NO_COLOR: '1' }, intervalMs: 20 });
    log.start(() => ({ done: 1, queued: 2, errors: 0 }), Date.now());
    log.record(page('/a'), 'http://127.0.0.1:1');
    await tick(80);
    log.stop();
    expect(out.text()).toBe('200  /a  1 link  700 ms\n');
  });

  it('a TTY: the live line is drawn and redrawn under the page lines, then erased', async () => {
    const out = sink(true);
    const log = new TerminalLog({ stream: out.stream, env: { NO_COLOR: '1' }, intervalMs: 20 });
    let done = 0;
    log.start(() => ({ done: ++done, queued: 3, errors: 0 }), Date.now() - 2000);
    // The live line is drawn every 20 ms once the terminal module is loaded (late on a busy machine).
    await until(() => /pages? done/.test(out.text()));
    log.record(page('/a'), 'http://127.0.0.1:1');
    const drawn = out.text().length;
    await until(() => /pages? done/.test(out.text().slice(drawn)));
    log.stop();
    const text = out.text();
    expect(log.live).toBe(true);
    expect(text).toMatch(/\d+ pages? done, 3 queued · [\d.]+ pages\/s · 0 errors · 0:0[23]/);
    expect(text).toMatch(REDRAW);
    expect(text).toContain('200  /a  1 link  700 ms\n');
  });

  it('--verbose adds settle timings and skipped URLs; the default leaves skipped URLs out; --quiet prints no page line', () => {
    const lines = (opts: { verbose?: boolean; quiet?: boolean }): string => {
      const out = sink(false);
      const log = new TerminalLog({ stream: out.stream, env: {}, ...opts });
      log.record(page('/a'), 'http://127.0.0.1:1');
      log.record(skipped, 'http://127.0.0.1:1');
      return out.text();
    };
    expect(lines({})).toBe('200  /a  1 link  700 ms\n');
    expect(lines({ verbose: true })).toBe('200  /a  1 link  700 ms  (ttfb 12 ms, load 45 ms, settled 640 ms)\nskip /private  (robots)\n');
    expect(lines({ quiet: true })).toBe('');
  });

  it('FORCE_COLOR colours the status without redraws when not a TTY', () => {
    const out = sink(false);
    const log = new TerminalLog({ stream: out.stream, env: { FORCE_COLOR: '1' } });
    log.record(page('/a'), 'http://127.0.0.1:1');
    log.record(page('/b', { status: 500 }), 'http://127.0.0.1:1');
    expect(out.text()).toBe('\u001b[32m200\u001b[39m  /a  1 link  700 ms\n\u001b[31m500\u001b[39m  /b  1 link  700 ms\n');
    expect(out.text()).not.toMatch(REDRAW);
  });
});

describe('the crawl command (in-process), stderr not a terminal', () => {
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer((_req, url) => {
      if (url.pathname === '/robots.txt') return { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private\n' };
      if (url.pathname === '/') return { body: html('Home', '<h1>Home</h1><a href="/a">A</a> <a href="/private">Private</a>') };
      if (url.pathname === '/a') return { body: html('A', '<h1>A</h1>') };
      return { status: 404, body: html('Not found', '<h1>Not found</h1>') };
    });
  }, 120_000);
  afterAll(async () => {
    await site?.close();
  });

  /** The crawl command with an environment of its own (no CI, NO_COLOR, FORCE_COLOR, GitHub variables unless given). */
  async function crawl(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
    const r = await runInProcess(['crawl', `${site.origin}/`, '--no-soft404', '--click', 'off', '--settle-timeout', '1000', ...args], { env });
    return { code: r.code, stderr: r.stderr };
  }

  it('--quiet with --verbose is a usage error: exit 2, one line', async () => {
    const r = await crawl(['-q', '--verbose']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--verbose|--quiet/);
  });

  it('--verbose prints settle timings and the skipped URL, with no ANSI codes', async () => {
    const r = await crawl(['--verbose']);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(ANSI);
    const lines = r.stderr.split('\n');
    expect(lines.filter((l) => l.startsWith('skip '))).toEqual(['skip /private  (robots)']);
    const pageLines = lines.filter((l) => /^\d{3} /.test(l));
    expect(pageLines.map((l) => l.split('  ').slice(0, 2).join('  ')).sort()).toEqual(['200  /', '200  /a']);
    for (const l of pageLines) expect(l).toMatch(/\(ttfb \d+ ms, load \d+ ms, settled \d+ ms\)$/);
  }, 90_000);

  it('by default the skipped URL gets no line; FORCE_COLOR=1 colours without redraws', async () => {
    const r = await crawl([], { FORCE_COLOR: '1' });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/^skip /m);
    expect(r.stderr).toContain('\u001b[32m200\u001b[39m  /a');
    expect(r.stderr).not.toMatch(REDRAW);
  }, 90_000);
});
