// Crawling behind a login (issue 19, points 1-6), against fixtures/sites/login-app.ts: a form
// login with a CSRF token, sessions that expire after N page requests, sign-out links and forms
// on every private page, a second role's area. Real Chromium, real HTTP server; the server
// counts logins, expiries and sign-out requests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_PASSWORD, LOGIN_USER, PRIVATE_PAGES, startLoginApp, type LoginApp } from '../fixtures/sites/login-app.js';
import { Crawler, type CrawlOptions, type PageRecord } from '../src/index.js';
import { sharedBrowser } from './helpers/browser.js';
import { chromiumChildren } from './helpers/processes.js';
import type { CrawlEvent } from '../src/crawl/events.js';
import { pathOf, sorted } from './helpers/records.js';
import { gate } from './helpers/gate.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MODULE_RECIPE = path.join(ROOT, 'fixtures/login/form-login.mjs');
const ENV = { APP_USER: LOGIN_USER, APP_PASSWORD: LOGIN_PASSWORD };
// The cases share nothing but the worker's Chromium (each has its own app and crawler; the one
// that kills Chromium launches its own), and most of their time is waiting (session expiries,
// --rate 1, logins): they run concurrently, three at a time.
const threeAtOnce = gate(3);
/** A case may wait for its turn, so its time limit counts the wait as well. */
const CASE_MS = 300_000;

let browser: Browser;
let tmp: string;

beforeAll(async () => {
  browser = await sharedBrowser();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-login-'));
}, 60_000);

afterAll(async () => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The Recorder export with the app's origin filled in (a recording names its site literally). */
function recorderRecipe(app: LoginApp): string {
  const file = path.join(tmp, `recorder-${app.server.port}.json`);
  fs.writeFileSync(file, fs.readFileSync(path.join(ROOT, 'fixtures/login/form-login.recorder.json'), 'utf8').replaceAll('http://__ORIGIN__', app.origin));
  return file;
}

interface Run {
  records: PageRecord[];
  events: CrawlEvent[];
  notices: string[];
  crawler: Crawler;
  error: unknown;
}

async function run(app: LoginApp, extra: Partial<CrawlOptions>): Promise<Run> {
  const events: CrawlEvent[] = [];
  const notices: string[] = [];
  const crawler = new Crawler({
    seeds: [`${app.origin}/`],
    browser,
    soft404: false,
    login: MODULE_RECIPE,
    loginEnv: ENV,
    onEvent: (e) => events.push(e),
    onNotice: (m) => notices.push(m),
    ...extra,
  });
  const records: PageRecord[] = [];
  let error: unknown = null;
  try {
    for await (const r of crawler.records()) records.push(r);
  } catch (err) {
    error = err;
  }
  return { records, events, notices, crawler, error };
}

const titles = (records: PageRecord[]): Record<string, string | null> =>
  Object.fromEntries(records.filter((r) => r.skipped === null && !r.redirect && r.status === 200).map((r) => [pathOf(r.url), r.title]));

/** Every private page with its real title, plus the public ones. */
const EXPECTED_TITLES = { '/': 'Welcome', '/about': 'About us', '/login': 'Sign in', ...PRIVATE_PAGES };

describe.concurrent('--login: a crawl that stays logged in', () => {
  for (const concurrency of [1, 8]) {
    it(`concurrency ${concurrency}: every private page with its real title, a re-login per expiry, no sign-out requested`, () =>
      threeAtOnce(async () => {
        // A session lasts a few pages (more than the pages in flight at once, as real sessions do).
        const app = await startLoginApp({ expireAfterRequests: concurrency === 1 ? 3 : 4 });
        try {
          const { records, crawler, error, events } = await run(app, { concurrency });
          expect(error).toBeNull();
          expect(titles(records)).toEqual(EXPECTED_TITLES);
          // Every URL once.
          expect(records.length).toBe(new Set(records.map((r) => r.url)).size);
          // Sign-outs: by URL (/logout, the form's /session/sign-out) and by link text (/account/end-all).
          expect(app.signOuts()).toBe(0);
          const skipped = Object.fromEntries(records.filter((r) => r.skipped).map((r) => [pathOf(r.url), r.skipped]));
          expect(skipped).toEqual({ '/logout': 'logout', '/account/end-all': 'logout' });
          // The admin area (another role) is recorded as a redirect to the login page, not retried forever.
          const admin = records.find((r) => pathOf(r.url) === '/admin');
          expect(admin).toMatchObject({ redirect: true, skipped: null, title: null });
          expect(new URL(admin!.finalUrl!).pathname).toBe('/login');
          // Several expiries, one login each, plus the first.
          const result = crawler.result();
          expect(app.expiries()).toBeGreaterThanOrEqual(2);
          // A login per expiry, but none for a session that the crawl's last requests used up (no page was left to log in for).
          const relogins = app.expiries() - (app.newestExpired() ? 1 : 0);
          expect(app.logins()).toBe(relogins + 1);
          expect(result.logins).toMatchObject({ logins: app.logins(), relogins, failedLogins: 0 });
          expect(events.filter((e) => e.type === 'login' && e.ok).length).toBe(app.logins());
          // No logged-out visit became a record: every private page was served logged in, once per record.
          expect(sorted(new Set(app.privateServed()))).toEqual(sorted(Object.keys(PRIVATE_PAGES)));
          // The login page is never requested by a logged-out visit (the redirect to it is stopped);
          // only once by the first login, opening its landing page without the session.
          expect(app.server.log.filter((r) => r.target.startsWith('/login?next=')).map((r) => r.target)).toEqual(['/login?next=%2Faccount']);
        } finally {
          await app.close();
        }
      }), CASE_MS);
  }

  for (const concurrency of [1, 8]) {
    it(`concurrency ${concurrency}: a session that expires after a time (not a request count): re-login per expiry, every private page with its real title`, () =>
      threeAtOnce(async () => {
        // Sessions live 6 s after their first page request; --rate 1 spreads the ~16 page requests
        // over 16 s or more, so the session runs out by time at least twice, whatever the machine's
        // speed. (2.5 s from the login failed with two CPU hogs: a visit outlived the session made
        // for it, again after each re-login, and /account was recorded as the login redirect.)
        const app = await startLoginApp({ expireAfterMs: 6_000 });
        try {
          const { records, crawler, error, events } = await run(app, { concurrency, rate: 1 });
          expect(error).toBeNull();
          expect(titles(records)).toEqual(EXPECTED_TITLES);
          expect(records.length).toBe(new Set(records.map((r) => r.url)).size);
          expect(app.signOuts()).toBe(0);
          expect(app.expiries()).toBeGreaterThanOrEqual(2);
          // A login per expiry, but none for a session that the crawl's last requests used up (no page was left to log in for).
          const relogins = app.expiries() - (app.newestExpired() ? 1 : 0);
          expect(app.logins()).toBe(relogins + 1);
          expect(crawler.result().logins).toMatchObject({ logins: app.logins(), relogins, failedLogins: 0 });
          expect(events.filter((e) => e.type === 'login' && e.ok && e.relogin).length).toBe(relogins);
          // Every private page was served logged in; none was recorded as the login page.
          expect(sorted(new Set(app.privateServed()))).toEqual(sorted(Object.keys(PRIVATE_PAGES)));
          expect(records.filter((r) => r.title === 'Sign in').map((r) => pathOf(r.url))).toEqual(['/login']);
        } finally {
          await app.close();
        }
      }), CASE_MS);
  }

  for (const [as, rule] of [
    ['form', 'selector:form#login'],
    ['401', 'status:401'],
  ] as const) {
    it(`--logged-out ${rule}: the login form shown in place (${as}) is a session end; contexts recycled after every page get the session`, () =>
      threeAtOnce(async () => {
        const app = await startLoginApp({ expireAfterRequests: 5, loggedOutAs: as });
        try {
          const { records, crawler, error } = await run(app, { concurrency: 4, loggedOut: [rule], recycleAfter: 1 });
          expect(error).toBeNull();
          const seen = titles(records);
          for (const [p, title] of Object.entries(PRIVATE_PAGES)) expect(seen[p], p).toBe(title);
          expect(app.signOuts()).toBe(0);
          expect(app.expiries()).toBeGreaterThanOrEqual(2);
          // A login per expiry, but none for a session that the crawl's last requests used up (no page was left to log in for).
          const relogins = app.expiries() - (app.newestExpired() ? 1 : 0);
          expect(app.logins()).toBe(relogins + 1);
          expect(crawler.result().logins?.relogins).toBe(relogins);
        } finally {
          await app.close();
        }
      }), CASE_MS);
  }

  it("killing the crawl's Chromium mid-crawl: the relaunched browser's contexts get the session, no new login", () =>
    threeAtOnce(async () => {
      const app = await startLoginApp();
      // The shared test browser is already a child and must survive.
      const before = new Set(chromiumChildren());
      let killed = 0;
      const killer = setInterval(() => {
        if (killed || app.privateServed().length < 2) return;
        for (const pid of chromiumChildren()) {
          if (before.has(pid)) continue;
          try {
            process.kill(pid, 'SIGKILL');
            killed++;
          } catch {
            // already gone
          }
        }
      }, 50);
      try {
        const { records, events, error } = await run(app, { browser: undefined, concurrency: 2 });
        expect(error).toBeNull();
        expect(killed).toBeGreaterThan(0);
        expect(events.some((e) => e.type === 'relaunch')).toBe(true);
        expect(titles(records)).toEqual(EXPECTED_TITLES);
        expect(app.logins()).toBe(1);
        expect(app.signOuts()).toBe(0);
      } finally {
        clearInterval(killer);
        await app.close();
      }
    }), CASE_MS);

  it('the Recorder JSON recipe logs into the same app', () =>
    threeAtOnce(async () => {
      const app = await startLoginApp({ expireAfterRequests: 4 });
      try {
        const { records, crawler, error } = await run(app, { concurrency: 2, login: recorderRecipe(app) });
        expect(error).toBeNull();
        expect(titles(records)).toEqual(EXPECTED_TITLES);
        expect(app.signOuts()).toBe(0);
        // A login per expiry, but none for a session that the crawl's last requests used up (no page was left to log in for).
        const relogins = app.expiries() - (app.newestExpired() ? 1 : 0);
        expect(app.logins()).toBe(relogins + 1);
        expect(crawler.result().logins?.logins).toBe(app.logins());
      } finally {
        await app.close();
      }
    }), CASE_MS);

  it('a wrong password stops the crawl after 3 failed logins (LoginError), nothing crawled', () =>
    threeAtOnce(async () => {
      const app = await startLoginApp({ password: 'something else entirely' });
      try {
        const { records, error } = await run(app, {});
        expect(error).toBeInstanceOf(Error);
        expect((error as Error).name).toBe('LoginError');
        expect((error as Error).message).toMatch(/login failed 3 times in a row/);
        expect((error as Error).message).not.toContain(LOGIN_PASSWORD);
        expect(app.failedLogins()).toBe(3);
        expect(records).toEqual([]);
      } finally {
        await app.close();
      }
    }), CASE_MS);
});
