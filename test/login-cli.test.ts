// The login from the command line (issue 19, points 1, 3, 4, 6): `crawl --login`, `spacrawl
// login --save-state` then `crawl --storage-state`, exit 3 on a wrong password, and no typed
// secret in any file the CLI writes. Runs the built CLI (dist/) against fixtures/sites/login-app.ts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_USER, PRIVATE_PAGES, startLoginApp } from '../fixtures/sites/login-app.js';
import type { PageRecord } from '../src/index.js';
import { pathOf, sorted } from './helpers/records.js';
import { gate } from './helpers/gate.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(REPO, 'bin', 'run.js');
const RECIPE = path.join(REPO, 'fixtures/login/form-login.mjs');
/** A password with a space, so that its URL-encoded forms differ from it. */
const PASSWORD = 'pw-Zq93 unmistakable';
const SECRET_FORMS = [PASSWORD, encodeURIComponent(PASSWORD), PASSWORD.replace(' ', '+'), LOGIN_USER];

let tmp: string;
// The cases share nothing (each has its own app and folder): they run concurrently, two at a time.
const twoAtOnce = gate(2);
/** A case may wait for its turn, so its time limit counts the wait as well. */
const CASE_MS = 300_000;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-login-cli-'));
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env, CI: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const killer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every file below `dir`, with its path relative to `dir`. */
function filesBelow(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => path.relative(dir, path.join(d.parentPath, d.name)));
}

/** Files (and file names) below `dir` that hold a secret in any of its forms. */
function leaks(dir: string, forms: readonly string[] = SECRET_FORMS): string[] {
  const out: string[] = [];
  for (const f of filesBelow(dir)) {
    const bytes = fs.readFileSync(path.join(dir, f));
    for (const s of forms) {
      if (f.includes(s) || bytes.includes(Buffer.from(s)) || bytes.includes(Buffer.from(s, 'utf16le'))) out.push(`${f}: ${s}`);
    }
  }
  return out;
}

const readJsonl = (file: string): PageRecord[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as PageRecord);

describe.concurrent('spacrawl crawl --login / spacrawl login', () => {
  it('a crawl whose session expires several times: every private page, a login per expiry a page ran into, no secret in any file or output', () =>
    twoAtOnce(async () => {
      const app = await startLoginApp({ password: PASSWORD, expireAfterRequests: 4 });
      const dir = fs.mkdtempSync(path.join(tmp, 'crawl-'));
      try {
        const r = await run(
          ['crawl', `${app.origin}/`, '--login', RECIPE, '--concurrency', '3', '--output-dir', 'out', '--state', 'crawl.db', '--report', 'csv:pages.csv', '--json', '--verbose'],
          { APP_USER: LOGIN_USER, APP_PASSWORD: PASSWORD },
          dir,
        );
        expect(r.stderr).not.toMatch(/\n\s+at /); // no stack
        expect(r.code).toBe(0);
        const records = readJsonl(path.join(dir, 'out/pages.jsonl'));
        const privatePages = records.filter((x) => pathOf(x.url) in PRIVATE_PAGES && x.status === 200);
        expect(Object.fromEntries(privatePages.map((x) => [pathOf(x.url), x.title]))).toEqual(PRIVATE_PAGES);
        expect(app.signOuts()).toBe(0);
        expect(sorted(records.filter((x) => x.skipped === 'logout').map((x) => pathOf(x.url)))).toEqual(['/account/end-all', '/logout']);
        const summary = JSON.parse(r.stdout) as { logins: { logins: number; relogins: number; failedLogins: number } };
        expect(app.expiries()).toBeGreaterThanOrEqual(2);
        // A login per expiry, but none for a session that the crawl's last requests used up (no page was left to log in for).
        const relogins = app.expiries() - (app.newestExpired() ? 1 : 0);
        expect(app.logins()).toBe(relogins + 1);
        expect(summary.logins).toMatchObject({ logins: app.logins(), relogins, failedLogins: 0 });
        expect(r.stderr).toContain(`${app.logins()} logins (${relogins} after the session ended)`);
        // The user name was on every private page (a link's text): redacted, like the password.
        expect(records.some((x) => x.linkDetails.some((l) => l.text === "[redacted]'s profile"))).toBe(true);
        expect(filesBelow(dir).length).toBeGreaterThanOrEqual(8);
        expect(leaks(dir)).toEqual([]);
        for (const s of SECRET_FORMS) expect(r.stdout + r.stderr).not.toContain(s);
      } finally {
        await app.close();
      }
    }), CASE_MS);

  it('spacrawl login --save-state writes a state file (mode 600, no secret) that a crawl with --storage-state uses; sign-outs are still never requested', () =>
    twoAtOnce(async () => {
      const app = await startLoginApp({ password: PASSWORD });
      const dir = fs.mkdtempSync(path.join(tmp, 'state-'));
      try {
        const login = await run(['login', `${app.origin}/`, '--login', RECIPE, '--save-state', 'auth.json'], { APP_USER: LOGIN_USER, APP_PASSWORD: PASSWORD }, dir);
        expect(login.code).toBe(0);
        expect(login.stderr).toMatch(/logged in: 2 cookies/);
        expect(fs.statSync(path.join(dir, 'auth.json')).mode & 0o777).toBe(0o600);
        const state = JSON.parse(fs.readFileSync(path.join(dir, 'auth.json'), 'utf8')) as { cookies: { name: string }[] };
        expect(sorted(state.cookies.map((c) => c.name))).toEqual(['csrf', 'sid']);
        expect(app.logins()).toBe(1);

        const crawl = await run(['crawl', `${app.origin}/`, '--storage-state', 'auth.json', '--out', 'pages.jsonl', '--concurrency', '4'], {}, dir);
        expect(crawl.code).toBe(0);
        const records = readJsonl(path.join(dir, 'pages.jsonl'));
        expect(sorted(records.filter((x) => pathOf(x.url) in PRIVATE_PAGES && x.status === 200).map((x) => pathOf(x.url)))).toEqual(sorted(Object.keys(PRIVATE_PAGES)));
        expect(app.logins()).toBe(1);
        expect(app.signOuts()).toBe(0);
        // The state file holds nothing the login typed; the crawl (which typed nothing: the site
        // shows the user name, which it may) holds no password either.
        expect(leaks(dir).filter((l) => l.startsWith('auth.json'))).toEqual([]);
        expect(leaks(dir, SECRET_FORMS.slice(0, 3))).toEqual([]);
      } finally {
        await app.close();
      }
    }), CASE_MS);

  it('--log-format json and --metrics: every stderr line is a JSON object, the endpoint answers during the crawl', () =>
    twoAtOnce(async () => {
      const app = await startLoginApp({ password: PASSWORD, expireAfterRequests: 4 });
      const dir = fs.mkdtempSync(path.join(tmp, 'ops-'));
      let scraped = '';
      try {
        const child = spawn(process.execPath, [BIN, 'crawl', `${app.origin}/`, '--login', RECIPE, '--log-format', 'json', '--metrics', '127.0.0.1:0', '--rate', '4'], {
          cwd: dir,
          env: { ...process.env, APP_USER: LOGIN_USER, APP_PASSWORD: PASSWORD },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stderr = '';
        child.stdout.resume();
        child.stderr.setEncoding('utf8').on('data', (c: string) => {
          stderr += c;
          const m = /"message":"metrics: (http:[^"]+)"/.exec(stderr);
          if (m && !scraped && /"event":"page"/.test(stderr)) {
            scraped = 'pending';
            void fetch(m[1]!).then(async (res) => (scraped = await res.text()), () => (scraped = 'failed'));
          }
        });
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        expect(code).toBe(0);
        const lines = stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; level: string; time: string; summary?: { logins: { logins: number } } });
        expect(lines.every((l) => typeof l.time === 'string' && ['info', 'warn', 'error'].includes(l.level))).toBe(true);
        expect(lines.at(-1)!.event).toBe('summary');
        expect(lines.at(-1)!.summary!.logins.logins).toBe(app.logins());
        const events = new Set(lines.map((l) => l.event));
        for (const e of ['login', 'notice', 'page', 'skip', 'logged-out', 'retry', 'summary']) expect(events.has(e), e).toBe(true);
        expect([...events].filter((e) => !['login', 'notice', 'page', 'skip', 'logged-out', 'retry', 'summary', 'relaunch', 'logout-blocked'].includes(e))).toEqual([]);
        expect(scraped).toMatch(/^spacrawl_pages_total\{outcome="ok"\} [1-9]/m);
        for (const s of SECRET_FORMS) expect(stderr).not.toContain(s);
      } finally {
        await app.close();
      }
    }), CASE_MS);

  it('a wrong password: exit 3 after 3 failed logins, a clear message, no stack, nothing crawled', () =>
    twoAtOnce(async () => {
      const app = await startLoginApp({ password: PASSWORD });
      const dir = fs.mkdtempSync(path.join(tmp, 'wrong-'));
      try {
        const r = await run(['crawl', `${app.origin}/`, '--login', RECIPE, '--out', 'pages.jsonl'], { APP_USER: LOGIN_USER, APP_PASSWORD: 'not the password' }, dir);
        expect(r.code).toBe(3);
        expect(r.stderr).toContain('spacrawl: crawl aborted: login failed 3 times in a row');
        expect(r.stderr).not.toMatch(/\n\s+at /);
        expect(r.stderr).not.toContain('not the password');
        expect(app.failedLogins()).toBe(3);
        expect(app.server.documents().filter((d) => d.path.startsWith('/account')).length).toBe(0);
        expect(fs.readFileSync(path.join(dir, 'pages.jsonl'), 'utf8')).toBe('');

        const missing = await run(['crawl', `${app.origin}/`, '--login', RECIPE], { APP_USER: LOGIN_USER, APP_PASSWORD: '' }, dir);
        // An empty variable is set: the login runs and fails; an unset one is a usage error (exit 2).
        expect(missing.code).toBe(3);
        const env = { ...process.env } as Record<string, string>;
        delete env.APP_PASSWORD;
        const unset = await new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, [BIN, 'login', `${app.origin}/`, '--login', path.join(REPO, 'fixtures/login/form-login.recorder.json'), '--save-state', 'x.json'], { cwd: dir, env, stdio: 'ignore' });
          child.on('close', resolve);
        });
        expect(unset).toBe(2);
      } finally {
        await app.close();
      }
    }), CASE_MS);
});
