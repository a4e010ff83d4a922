import { describe, expect, it } from 'vitest';
import { MAX_PROBES_PER_ORIGIN, NO_PAGE, repeatedProbe, routePrefixes, SoftNotFound, type ProbeResult, type RenderedPage } from '../src/crawl/soft404.js';

// The judging logic, with what each probe rendered given by the test (the browser and the
// probes' real requests are in test/judge-crawl.test.ts).
const O = 'http://site.test';
const NOT_FOUND_APP = "acme app sorry, we couldn't find that page. go to your dashboard";
/** An app's not-found screen that names what was not found. */
const naming = (what: string): string => `acme app no report named ${what} here. it may have been deleted or renamed; go to your dashboard`;
const PLAIN_404 = 'not found';
const HOME = 'acme welcome to acme, the tool that does everything for teams of every size';

/** A SoftNotFound whose probes answer by prefix; returns the probe paths asked, in order. */
function judgeWith(answer: (prefix: string, name: string) => Omit<ProbeResult, 'path' | 'finalUrl' | 'digest'> & { finalUrl?: string | null }) {
  const asked: string[] = [];
  const notes: string[] = [];
  const s = new SoftNotFound(async (url) => {
    const u = new URL(url);
    const prefix = u.pathname.replace(/spacrawl-probe-[a-z0-9]+$/, '');
    asked.push(prefix);
    const a = answer(prefix, u.pathname.split('/').pop()!);
    return { text: a.text, ...(a.title !== undefined ? { title: a.title } : {}), status: a.status, path: u.pathname, finalUrl: a.finalUrl === undefined ? url : a.finalUrl, digest: null };
  }, (n) => notes.push(n));
  const page = (path: string, text: string, extra: Partial<RenderedPage> = {}): RenderedPage => ({ url: `${O}${path}`, status: 200, title: text.split(' ')[0] ?? '', headings: [], text, ...extra });
  return { s, asked, notes, page };
}

describe('routePrefixes', () => {
  it('the root, then each directory up to 2 segments', () => {
    expect(routePrefixes('/')).toEqual(['/']);
    expect(routePrefixes('/docs')).toEqual(['/']);
    expect(routePrefixes('/app/')).toEqual(['/', '/app/']);
    expect(routePrefixes('/app/settings/profile')).toEqual(['/', '/app/', '/app/settings/']);
    expect(routePrefixes('/-/web/detail/pkg')).toEqual(['/', '/-/', '/-/web/']);
  });
});

describe('SoftNotFound: a server that sends real 404s in its pages\' layout', () => {
  // A documentation site: a sidebar of 120 links is most of every page's text, the 404 page included.
  const name = (i: number): string => String.fromCharCode(97 + (i % 26)) + String.fromCharCode(97 + Math.floor(i / 26));
  const SIDEBAR = Array.from({ length: 120 }, (_, i) => `topic ${name(i)} guide`).join(' ');
  const screen = (title: string, body: string): { title: string; text: string } => ({ title, text: `${title} ${SIDEBAR} ${body}` });
  const notFound = screen('Not found | Docs', 'this page does not exist');

  it('a page answering 200 under its own title is no soft 404, however alike the texts; one under the 404 page\'s title is', async () => {
    const { s, page } = judgeWith(() => ({ status: 404, ...notFound }));
    s.ensure(O);
    const real = screen('Topic 7 | Docs', 'how to configure topic seven');
    expect(await s.judge(page('/docs/t7', real.text, { title: real.title }), false)).toBeNull();
    expect(await s.judge(page('/', screen('Home | Docs', 'welcome').text, { title: 'Home | Docs' }), true)).toBeNull();
    expect(await s.judge(page('/docs/gone', notFound.text, { title: '  not found |  docs ' }), false)).toBe('fingerprint');
  });

  it('a probe answering 200 (an app\'s catch-all route) still matches by text alone, whatever the titles', async () => {
    const { s, page } = judgeWith(() => ({ status: 200, ...notFound }));
    s.ensure(O);
    expect(await s.judge(page('/', HOME), true)).toBeNull();
    expect(await s.judge(page('/docs/gone', notFound.text, { title: 'Docs' }), false)).toBe('fingerprint');
  });
});

describe('SoftNotFound: probes under the route prefix where the app answers', () => {
  it('an app under /app/ on a server that answers other unknown paths with a plain 404: its own screen is learned', async () => {
    const { s, asked, page } = judgeWith((p) => (p === '/app/' ? { status: 200, text: NOT_FOUND_APP } : { status: 404, text: PLAIN_404 }));
    s.ensure(O);
    expect(await s.judge(page('/', HOME), true)).toBeNull();
    expect(await s.judge(page('/app/reports/old', NOT_FOUND_APP), false)).toBe('fingerprint');
    expect(await s.judge(page('/app/dashboard', 'acme app dashboard: 3 reports, 2 alerts, your team and your plan at a glance'), false)).toBeNull();
    // The root, then /app/ (answered 200: nothing deeper is probed), each once.
    expect(asked).toEqual(['/', '/app/']);
  });

  it('a screen that names the missing thing ("no report named X") matches whatever X is', async () => {
    const { s, page } = judgeWith((p, name) => (p === '/app/' ? { status: 200, text: naming(name) } : { status: 404, text: PLAIN_404 }));
    expect(await s.judge(page('/app/old-report', naming('old-report')), false)).toBe('fingerprint');
    expect(await s.judge(page('/app/q3-summary', naming('q1-summary')), false)).toBeNull();
  });

  it('without the /app/ probe the same screen is missed (the root probe only saw a plain 404)', async () => {
    const { s, page } = judgeWith((p) => (p === '/' ? { status: 404, text: PLAIN_404 } : { status: 200, text: NOT_FOUND_APP }));
    s.ensure(O);
    // A page at the root level is compared with the root probe only.
    expect(await s.judge(page('/old', NOT_FOUND_APP), false)).toBeNull();
  });

  it('goes deeper while the probes get 404, and stops at the first 200', async () => {
    const { s, asked, page } = judgeWith((p) => (p === '/-/web/' ? { status: 200, text: NOT_FOUND_APP } : { status: 404, text: PLAIN_404 }));
    expect(await s.judge(page('/-/web/detail/gone-pkg', NOT_FOUND_APP), false)).toBe('fingerprint');
    expect(asked).toEqual(['/', '/-/', '/-/web/']);
  });

  it('probes at most MAX_PROBES_PER_ORIGIN times per origin', async () => {
    const { s, asked, page } = judgeWith(() => ({ status: 404, text: PLAIN_404 }));
    for (let i = 0; i < 20; i++) expect(await s.judge(page(`/d${i}/x`, HOME), false)).toBeNull();
    expect(asked).toHaveLength(MAX_PROBES_PER_ORIGIN);
  });

  it('a probe that renders the seed is no fingerprint (start page for every route), and says so once', async () => {
    const { s, notes, page } = judgeWith(() => ({ status: 200, text: HOME }));
    s.ensure(O);
    expect(await s.judge(page('/', HOME), true)).toBeNull();
    expect(await s.judge(page('/missing', HOME), false)).toBeNull();
    expect(notes).toEqual([`${O} renders its start page for unknown routes: soft-404 fingerprint matching is off there (titles and headings of near-empty pages still count)`]);
  });

  it('a probe under /app/ that renders /app/ itself is no fingerprint', async () => {
    const APP_HOME = 'acme app your dashboard: reports, alerts, team and plan';
    const { s, notes, page } = judgeWith((p) => (p === '/app/' ? { status: 200, text: APP_HOME } : { status: 404, text: PLAIN_404 }));
    expect(await s.judge(page('/app/', APP_HOME), false)).toBeNull();
    expect(await s.judge(page('/app/x', APP_HOME), false)).toBeNull();
    expect(notes).toHaveLength(1);
  });

  it('the page a probe was redirected to is not matched to it', async () => {
    const LOGIN = 'acme sign in with your email and password to continue to acme';
    const { s, page } = judgeWith(() => ({ status: 200, text: LOGIN, finalUrl: `${O}/login` }));
    expect(await s.judge(page('/login', LOGIN), false)).toBeNull();
    expect(await s.judge(page('/old', LOGIN), false)).toBe('fingerprint');
  });

  it('a 404 probe with a real not-found screen is a fingerprint too; an empty or one-line one is not', async () => {
    const SCREEN = 'acme we looked everywhere but this page is not here. try the home page';
    const { s, page } = judgeWith(() => ({ status: 404, text: SCREEN }));
    expect(await s.judge(page('/old', SCREEN), false)).toBe('fingerprint');
    const thin = judgeWith(() => ({ status: 404, text: '' }));
    expect(await thin.s.judge(thin.page('/blank', ''), false)).toBeNull();
  });

  it('the text rule still applies where no fingerprint matches; only 200s are judged', async () => {
    const { s, page } = judgeWith(() => ({ status: 404, text: PLAIN_404 }));
    expect(await s.judge(page('/gone', '404 — shop gone', { title: '404 — Shop', headings: ['Gone'] }), false)).toBe('not-found-title');
    expect(await s.judge({ ...page('/x', NOT_FOUND_APP, { headings: ['Not found'] }), status: 404 }, false)).toBeNull();
  });
});

describe('SoftNotFound: probes of a server that answers unknown paths with no page', () => {
  /**
   * Probes answered by prefix: the app's not-found screen under /app/, elsewhere `NO_PAGE`, a
   * plain 404 page whose bytes were not read (`page`), or one whose were (`known page`); records
   * each call's prefix and how it was asked (`ProbeAsk`).
   */
  function noPageOutsideApp(outside: 'no-page' | 'page' | 'known page') {
    const calls: string[] = [];
    const s = new SoftNotFound(
      async (url, _queued, ask) => {
        const prefix = new URL(url).pathname.replace(/spacrawl-probe-[a-z0-9]+$/, '');
        calls.push(`${prefix} ${ask.plainFirst ? 'plain first' : 'rendered'}${ask.known.length ? `, ${ask.known.map((k) => `${k.status} ${k.digest}`).join(' ')} known` : ''}`);
        if (prefix === '/app/') return { text: NOT_FOUND_APP, status: 200, path: new URL(url).pathname, finalUrl: url, digest: 'shell' };
        if (outside !== 'no-page') return { text: PLAIN_404, status: 404, path: new URL(url).pathname, finalUrl: url, digest: outside === 'known page' ? 'page404' : null };
        return NO_PAGE;
      },
      () => {},
    );
    const page = (path: string, text: string): RenderedPage => ({ url: `${O}${path}`, status: 200, title: '', headings: [], text });
    return { s, calls, page };
  }

  it('after a probe answered with no page, the origin\'s later probes ask over plain HTTP first; a no-page answer is no fingerprint', async () => {
    const { s, calls, page } = noPageOutsideApp('no-page');
    expect(await s.judge(page('/docs/a', 'docs page a with its own text about the tool and how to use it'), false)).toBeNull();
    expect(await s.judge(page('/app/reports/old', NOT_FOUND_APP), false)).toBe('fingerprint');
    expect(calls).toEqual(['/ rendered', '/docs/ plain first', '/app/ plain first']);
  });

  it('after probes that answered with pages, every probe is rendered', async () => {
    const { s, calls, page } = noPageOutsideApp('page');
    expect(await s.judge(page('/docs/a', 'docs page a with its own text about the tool and how to use it'), false)).toBeNull();
    expect(await s.judge(page('/app/reports/old', NOT_FOUND_APP), false)).toBe('fingerprint');
    expect(calls).toEqual(['/ rendered', '/docs/ rendered', '/app/ rendered']);
  });

  it('after a probe rendered a 404 page of known bytes, later probes are asked with it (a 200 is never offered for reuse)', async () => {
    const { s, calls, page } = noPageOutsideApp('known page');
    expect(await s.judge(page('/docs/a', 'docs page a with its own text about the tool and how to use it'), false)).toBeNull();
    expect(await s.judge(page('/app/reports/old', NOT_FOUND_APP), false)).toBe('fingerprint');
    expect(await s.judge(page('/app/x/y', 'the x page of the app, about y and the rest of it'), false)).toBeNull();
    // The same 404 is offered once, however many probes repeated it; the app's 200 screen is not.
    expect(calls).toEqual(['/ rendered', '/docs/ rendered, 404 page404 known', '/app/ rendered, 404 page404 known']);
  });
});

describe('repeatedProbe: a plain answer that repeats an earlier probe\'s document', () => {
  const known: ProbeResult[] = [
    { text: 'not found', status: 404, path: '/spacrawl-probe-a', finalUrl: null, digest: 'aaa' },
    { text: 'gone', status: 410, path: '/x/spacrawl-probe-b', finalUrl: null, digest: 'bbb' },
  ];
  it('the same status and bytes: that probe', () => {
    expect(repeatedProbe(known, 404, 'aaa')).toBe(known[0]);
    expect(repeatedProbe(known, 410, 'bbb')).toBe(known[1]);
  });
  it('another status, other bytes, bytes not read, or a 200: none', () => {
    expect(repeatedProbe(known, 410, 'aaa')).toBeUndefined();
    expect(repeatedProbe(known, 404, 'ccc')).toBeUndefined();
    expect(repeatedProbe(known, 404, null)).toBeUndefined();
    expect(repeatedProbe([{ ...known[0]!, status: 200 }], 200, 'aaa')).toBeUndefined();
    expect(repeatedProbe([], 404, 'aaa')).toBeUndefined();
  });
});
