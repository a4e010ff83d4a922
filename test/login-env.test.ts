// A --login module decides what an unset variable means: `env.APP_USER ?? 'alice'` falls back
// instead of being refused; a module that throws because the site rejected the login ends the
// crawl with exit 3 and one error line. In-process CLI against fixtures/sites/login-app.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_PASSWORD, LOGIN_USER, PRIVATE_PAGES, startLoginApp, type LoginApp } from '../fixtures/sites/login-app.js';
import { runInProcess } from './helpers/cli.js';

/** A login module: the user from APP_USER or `alice`; throws when the site shows the form again. */
const FALLBACK_RECIPE = `export default async ({ page, env, baseUrl }) => {
  await page.goto(new URL('/login', baseUrl).href);
  await page.fill('#username', env.APP_USER ?? '${LOGIN_USER}');
  await page.fill('#password', env.APP_PASSWORD ?? 'no password given');
  await Promise.all([page.waitForNavigation(), page.click('#submit')]);
  if (await page.$('#password')) throw new Error('login rejected: the login form is shown again\\nsecond line');
};
`;

let tmp: string;
let app: LoginApp;
let recipe: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-login-env-'));
  recipe = path.join(tmp, 'fallback-login.mjs');
  fs.writeFileSync(recipe, FALLBACK_RECIPE);
  app = await startLoginApp();
});

afterAll(async () => {
  await app?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a --login module and the environment', () => {
  it('APP_USER unset, read with a fallback: not refused, the login works and private pages are crawled', async () => {
    const out = path.join(tmp, 'pages.jsonl');
    const r = await runInProcess(['crawl', `${app.origin}/account`, '--login', recipe, '--max-pages', '3', '--concurrency', '1', '--no-progress', '--fail-on', 'none', '--out', out], {
      env: { APP_PASSWORD: LOGIN_PASSWORD },
    });
    expect({ code: r.code, refused: r.stderr.includes('not set') }).toEqual({ code: 0, refused: false });
    expect(app.logins()).toBe(1);
    const titles = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { title: string | null }).title);
    expect(titles[0]).toBe(PRIVATE_PAGES['/account']);
  }, 120_000);

  it('a module that throws on a rejected login: exit 3, one error line naming its error and the unset variable, no stack', async () => {
    const before = app.failedLogins();
    const served = app.privateServed().length;
    const r = await runInProcess(['crawl', `${app.origin}/account`, '--login', recipe, '--no-progress', '--out', path.join(tmp, 'rejected.jsonl')], { env: { APP_USER: LOGIN_USER } });
    expect(r.code).toBe(3);
    expect(app.failedLogins() - before).toBe(3);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('spacrawl: '));
    expect(errors).toEqual([
      'spacrawl: crawl aborted: login failed 3 times in a row (last: login rejected: the login form is shown again (the recipe read APP_PASSWORD, which is not set)); check the recipe and the credentials',
    ]);
    expect(r.stderr).not.toMatch(/\n\s+at |second line/);
    expect(app.privateServed().length - served).toBe(0);
  }, 120_000);
});
