// The pure rules of a logged-in crawl: what a sign-out looks like, how secrets are removed,
// which --logged-out values are rules, which Recorder exports are accepted. No browser.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRecorderFlow, envNamesOf } from '../../src/browser/login/recorder.js';
import { loadLoginRecipe } from '../../src/browser/login/recipe.js';
import { LoginEnv, LoginRecipeError } from '../../src/browser/login/env.js';
import { unsetNote } from '../../src/crawl/session-guard.js';
import { parseLoggedOutRules, LoggedOutRuleError } from '../../src/crawl/logged-out.js';
import { classifyLinks } from '../../src/crawl/link-pipeline.js';
import { Secrets, REDACTED } from '../../src/model/secrets.js';
import { isLogoutText, isLogoutUrl, logoutUrlPatterns } from '../../src/url/logout.js';
import { Scope } from '../../src/url/scope.js';

describe('sign-out URLs and texts', () => {
  it.each([
    ['https://a.test/logout', true],
    ['https://a.test/users/sign_out', true],
    ['https://a.test/auth/log-off?x=1', true],
    ['https://a.test/wp-login.php?action=logout', true],
    ['https://a.test/Log%20Out', true],
    ['https://a.test/SignOut', true],
    ['https://a.test/catalog-output', false],
    ['https://a.test/blog/outdoor', false],
    ['https://logout.a.test/page', false],
    ['https://a.test/login', false],
  ])('%s → %s', (url, expected) => {
    expect(isLogoutUrl(url)).toBe(expected);
  });

  it('texts', () => {
    expect(['Sign out', 'Log out everywhere', 'Logoff', 'sign-out', 'Log Off alice'].map(isLogoutText)).toEqual([true, true, true, true, true]);
    expect(['Sign in', 'Catalog outlet', 'Blog', 'Logout-free zone'].map(isLogoutText)).toEqual([false, false, false, true]);
  });

  it("every sign-out URL is paused by one of the CDP patterns (the guard's prefilter)", () => {
    const toRe = (p: string): RegExp => new RegExp(`^${p.split('*').map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    const pats = logoutUrlPatterns().map(toRe);
    for (const u of ['https://a.test/logout', 'https://a.test/users/sign_out', 'https://a.test/Log%20Out', 'https://a.test/SignOut', 'https://a.test/x?action=LOGOFF']) {
      expect(pats.some((p) => p.test(u)), u).toBe(true);
    }
  });

  it('a link whose text says sign out marks its URL, whatever other links to it say', () => {
    const scope = new Scope(['https://a.test/']);
    const c = classifyLinks(
      [
        { href: 'https://a.test/account/end-all', text: 'Everywhere', source: 'anchor', rel: '' },
        { href: 'https://a.test/account/end-all', text: 'Log out everywhere', source: 'anchor', rel: '' },
        { href: 'https://a.test/logout', text: 'Bye', source: 'anchor', rel: '' },
        { href: 'https://a.test/orders', text: 'Orders', source: 'anchor', rel: '' },
      ],
      scope,
    );
    expect(c.candidates.map((x) => [new URL(x.url).pathname, x.signOut ?? false])).toEqual([
      ['/account/end-all', true],
      ['/logout', true],
      ['/orders', false],
    ]);
  });
});

describe('secrets', () => {
  it('are removed as written and URL-encoded, longest first; short values are not secrets', () => {
    const s = new Secrets();
    s.add(['pw secret+1', 'pw', 'alice']);
    expect(s.redact('a pw secret+1 b pw%20secret%2B1 c pw+secret%2B1 d alice pw')).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED} d ${REDACTED} pw`);
    const rec = { title: 'Hi alice', links: [{ text: "alice's" }], n: 3 };
    expect(s.redactDeep(rec)).toEqual({ title: `Hi ${REDACTED}`, links: [{ text: `${REDACTED}'s` }], n: 3 });
  });

  it('the login environment: a module reads an unset variable as undefined (it may fall back), a Recorder flow cannot; every value read is kept', () => {
    const env = new LoginEnv({ A: 'value-a', B: 'value-b' });
    const view = env.view();
    expect(view.A).toBe('value-a');
    expect(view.C).toBeUndefined();
    expect(view.C ?? 'ada').toBe('ada');
    expect(['A' in view, 'C' in view]).toEqual([true, false]);
    expect(() => env.get('D')).toThrow(new LoginRecipeError('the login needs the environment variable D, which is not set'));
    expect(env.values()).toEqual(['value-a']);
    expect(env.unsetRead()).toEqual(['C']);
    expect(unsetNote(env.unsetRead())).toBe(' (the recipe read C, which is not set)');
    expect(unsetNote(['C', 'D'])).toBe(' (the recipe read C, D, which are not set)');
    expect(unsetNote([])).toBe('');
  });
});

describe('--logged-out rules', () => {
  it('parses url:, selector:, status:', () => {
    expect(parseLoggedOutRules(['url:/sign_in', 'selector:form#login', 'status:401']).map((r) => r.kind)).toEqual(['url', 'selector', 'status']);
  });
  it.each(['nothing', 'url:(', 'status:200', 'status:abc', 'cookie:x'])('refuses %s', (v) => {
    expect(() => parseLoggedOutRules([v])).toThrow(LoggedOutRuleError);
  });
});

describe('Recorder exports', () => {
  it('a Recorder export that is not JSON: one line with where it breaks', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-recipe-'));
    const file = path.join(dir, 'login.json');
    fs.writeFileSync(file, '{\n  "title": "login",\n  steps: []\n}\n');
    await expect(loadLoginRecipe(file)).rejects.toThrow(`--login ${file}: not valid JSON (Expected double-quoted property name in JSON at position 24 (line 3, column 3))`);
    fs.writeFileSync(file, 'title: login\nsteps: []\n');
    await expect(loadLoginRecipe(file)).rejects.toThrow(`--login ${file}: not valid JSON (Unexpected token 'i' in JSON at position 1 (line 1, column 2))`);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const flow = {
    title: 't',
    steps: [
      { type: 'setViewport', width: 800, height: 600 },
      { type: 'navigate', url: 'https://a.test/login' },
      { type: 'change', value: '${env.APP_PASSWORD}', selectors: [['#password']] },
      { type: 'keyDown', key: 'Enter' },
    ],
  };
  it('accepts a flow and names its variables', () => {
    expect(envNamesOf(parseRecorderFlow(flow, 'f.json'))).toEqual(['APP_PASSWORD']);
  });
  it('refuses what it cannot replay, naming the step', () => {
    expect(() => parseRecorderFlow({ steps: [{ type: 'customStep' }] }, 'f.json')).toThrow(/step 1: step type "customStep" is not supported/);
    expect(() => parseRecorderFlow({ steps: [{ type: 'click' }] }, 'f.json')).toThrow(/step 1 \(click\) has no "selectors"/);
    expect(() => parseRecorderFlow({ title: 'x' }, 'f.json')).toThrow(/no "steps" array/);
  });
});
