import { describe, expect, it } from 'vitest';
import { BARREN_CLICKS_IN_PAGE, BARREN_PAGES, ClickMemory, UNSETTLED_LOOKS, type ClickObservation } from '../../src/browser/click-memory.js';

const SITE = 'http://127.0.0.1:1';
const seen = (revealed: string[], present: string[] = [], settled = true): ClickObservation => ({ revealed: new Set(revealed), present: new Set([...revealed, ...present]), settled });

describe('ClickMemory', () => {
  it('the same links revealed on two pages make chrome: no third page clicks it', () => {
    const m = new ClickMemory();
    const a = m.forPage(SITE, '/a');
    expect(a.take('menu', false)).toBe('click');
    a.observe('menu', seen(['/docs', '/blog']));
    const b = m.forPage(SITE, '/b');
    expect(b.take('menu', false)).toBe('click');
    b.observe('menu', seen(['/docs', '/blog']));
    expect(m.kindOf(SITE, 'menu')).toBe('chrome');
    expect(m.forPage(SITE, '/c').peek('menu')).toBe('skip');
    expect(m.forPage(SITE, '/c').take('menu', true)).toBe('skip');
  });

  it('a link the first page revealed and the second page already had still counts as the same', () => {
    const m = new ClickMemory();
    m.forPage(SITE, '/a').take('menu', false);
    m.forPage(SITE, '/a').observe('menu', seen(['/docs', '/blog']));
    m.forPage(SITE, '/docs').take('menu', false);
    m.forPage(SITE, '/docs').observe('menu', seen(['/blog'], ['/docs']));
    expect(m.kindOf(SITE, 'menu')).toBe('chrome');
  });

  it('different links make a per-page control, clicked on every page; so does revealing less', () => {
    const m = new ClickMemory();
    m.forPage(SITE, '/pkg/a').take('versions', false);
    m.forPage(SITE, '/pkg/a').observe('versions', seen(['/pkg/a/v/1']));
    m.forPage(SITE, '/pkg/b').take('versions', false);
    m.forPage(SITE, '/pkg/b').observe('versions', seen(['/pkg/b/v/1']));
    expect(m.kindOf(SITE, 'versions')).toBe('per-page');
    expect(m.forPage(SITE, '/pkg/c').take('versions', false)).toBe('click');

    m.forPage(SITE, '/t/1').take('replies', false);
    m.forPage(SITE, '/t/1').observe('replies', seen(['/t/1#r1']));
    m.forPage(SITE, '/t/2').take('replies', false);
    m.forPage(SITE, '/t/2').observe('replies', seen([]));
    expect(m.kindOf(SITE, 'replies')).toBe('per-page');
  });

  it('a second look from the same page does not decide; sites are apart', () => {
    const m = new ClickMemory();
    for (let i = 0; i < 2; i++) {
      m.forPage(SITE, '/a').take('menu', false);
      m.forPage(SITE, '/a').observe('menu', seen(['/docs']));
    }
    expect(m.kindOf(SITE, 'menu')).toBe('unknown');
    expect(m.kindOf('http://127.0.0.1:2', 'menu')).toBe('unknown');
  });

  it('two pages learn a control side by side; a third waits (or clicks when forced) until a look is in; a release frees a claim', () => {
    const m = new ClickMemory();
    const a = m.forPage(SITE, '/a');
    const b = m.forPage(SITE, '/b');
    const c = m.forPage(SITE, '/c');
    expect(a.take('menu', false)).toBe('click');
    expect(b.peek('menu')).toBe('click');
    expect(b.take('menu', false)).toBe('click');
    expect(c.peek('menu')).toBe('wait');
    expect(c.take('menu', false)).toBe('wait');
    expect(c.take('menu', true)).toBe('click');
    a.release('menu');
    expect(c.peek('menu')).toBe('click');
    expect(c.take('menu', false)).toBe('click');
    expect(a.peek('menu')).toBe('wait');
    // One look in: one more decides, and the page still looking holds that claim.
    b.observe('menu', seen(['/docs']));
    expect(a.peek('menu')).toBe('wait');
    c.release('menu');
    expect(a.take('menu', false)).toBe('click');
    expect(c.peek('menu')).toBe('wait');
    a.observe('menu', seen(['/docs']));
    expect(m.kindOf(SITE, 'menu')).toBe('chrome');
    expect(c.peek('menu')).toBe('skip');
  });

  it('a page waiting on a claim is woken when a claim ends or a look is in, not before', async () => {
    const m = new ClickMemory();
    const a = m.forPage(SITE, '/a');
    const b = m.forPage(SITE, '/b');
    const c = m.forPage(SITE, '/c');
    a.take('menu', false);
    b.take('menu', false);
    let woken = 0;
    const wait = (): Promise<void> => c.claimEnded!().then(() => void woken++);
    const first = wait();
    const second = wait();
    // Nothing ended: nobody is woken, however long the microtask queue runs.
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(woken).toBe(0);
    expect(c.take('menu', false)).toBe('wait');
    a.release('menu');
    await Promise.all([first, second]);
    expect(woken).toBe(2);
    expect(c.take('menu', false)).toBe('click');
    // A release of a claim not held wakes no one; a look that comes in does.
    const third = wait();
    a.release('menu');
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(woken).toBe(2);
    b.observe('menu', seen(['/docs']));
    await third;
    expect(woken).toBe(3);
  });

  it('an empty look whose settle wait ran out is no evidence, up to UNSETTLED_LOOKS of them; one that revealed links is', () => {
    const m = new ClickMemory();
    // A slow "Versions" tab: the first two pages' clicks ran out of time before it showed.
    for (const p of ['/pkg/a', '/pkg/b']) {
      expect(m.forPage(SITE, p).take('versions', false)).toBe('click');
      m.forPage(SITE, p).observe('versions', seen([], [p], false));
    }
    expect(m.kindOf(SITE, 'versions')).toBe('unknown');
    expect(m.forPage(SITE, '/pkg/c').take('versions', false)).toBe('click');
    m.forPage(SITE, '/pkg/c').observe('versions', seen(['/pkg/c/v/1']));
    m.forPage(SITE, '/pkg/d').take('versions', false);
    m.forPage(SITE, '/pkg/d').observe('versions', seen(['/pkg/d/v/1']));
    expect(m.kindOf(SITE, 'versions')).toBe('per-page');

    // Two settled empty looks still make chrome (a theme switch that reveals no links).
    m.forPage(SITE, '/a').observe('theme', seen([]));
    m.forPage(SITE, '/b').observe('theme', seen([]));
    expect(m.kindOf(SITE, 'theme')).toBe('chrome');

    // Unsettled looks that revealed links count at once.
    m.forPage(SITE, '/a').observe('menu', seen(['/docs'], [], false));
    m.forPage(SITE, '/b').observe('menu', seen(['/docs'], [], false));
    expect(m.kindOf(SITE, 'menu')).toBe('chrome');

    // A site that never goes quiet: the look after UNSETTLED_LOOKS set aside ones counts.
    const pages = Array.from({ length: UNSETTLED_LOOKS + 2 }, (_, i) => `/n/${i}`);
    for (const [i, p] of pages.entries()) {
      expect([i, m.kindOf(SITE, 'search')]).toEqual([i, 'unknown']);
      m.forPage(SITE, p).observe('search', seen([], [], false));
    }
    expect(m.kindOf(SITE, 'search')).toBe('chrome');
    expect(UNSETTLED_LOOKS).toBe(3);
  });
  it('a template: its first page clicks all of its own; another page counts after 3 barren clicks; then every page but the first skips it; a third page waits meanwhile', () => {
    expect([BARREN_PAGES, BARREN_CLICKS_IN_PAGE]).toEqual([2, 3]);
    const m = new ClickMemory();
    const T = 'button|body|div|toggle|x';
    const a = m.forPage(SITE, '/a');
    const b = m.forPage(SITE, '/b');
    const c = m.forPage(SITE, '/c');
    // Two pages may look at once; a third meeting a control of the template waits (or clicks when forced).
    expect(a.take('ex-a-1', false, T)).toBe('click');
    expect(b.take('ex-b-1', false, T)).toBe('click');
    expect(c.peek('ex-c-1', T)).toBe('wait');
    expect(c.take('ex-c-1', true, T)).toBe('click');
    a.observe('ex-a-1', seen([]), T);
    b.observe('ex-b-1', seen([]), T);
    // The first page counts at once; the second after its third barren click, and until then the
    // third page still waits.
    expect([b.take('ex-b-2', false, T), c.peek('ex-c-1', T)]).toEqual(['click', 'wait']);
    b.observe('ex-b-2', seen([]), T);
    expect([b.take('ex-b-3', false, T), c.peek('ex-c-1', T)]).toEqual(['click', 'wait']);
    b.observe('ex-b-3', seen([]), T);
    // Barren on two pages: skipped everywhere but on the first page, which finishes its own.
    expect([a.peek('ex-a-2', T), b.peek('ex-b-4', T), c.peek('ex-c-1', T), m.forPage(SITE, '/d').peek('ex-d-1', T)]).toEqual(['click', 'skip', 'skip', 'skip']);
    expect(c.skipReason('ex-c-1', T)).toBe('template');
  });

  it('a page with fewer than 3 controls of a template counts when its clicks end; a look whose wait ran out is no evidence', () => {
    const m = new ClickMemory();
    const T = 'button|body|div|toggle|x';
    const a = m.forPage(SITE, '/a');
    a.take('ex-a-1', false, T);
    a.observe('ex-a-1', seen([]), T);
    const b = m.forPage(SITE, '/b');
    b.take('ex-b-1', false, T);
    b.observe('ex-b-1', seen([]), T);
    b.take('ex-b-2', false, T);
    b.observe('ex-b-2', seen([], [], false), T);
    expect(m.forPage(SITE, '/c').peek('ex-c-1', T)).toBe('wait');
    b.end?.();
    expect(m.forPage(SITE, '/c').peek('ex-c-1', T)).toBe('skip');
    // A page whose clicks ended with only unsettled looks does not count.
    const m2 = new ClickMemory();
    const p = m2.forPage(SITE, '/a');
    p.take('ex-a-1', false, T);
    p.observe('ex-a-1', seen([]), T);
    const q = m2.forPage(SITE, '/b');
    q.take('ex-b-1', false, T);
    q.observe('ex-b-1', seen([], [], false), T);
    q.end?.();
    expect(m2.forPage(SITE, '/c').peek('ex-c-1', T)).toBe('click');
  });

  it('a page whose clicks end frees its look at a template; a link revealed makes the template fruitful: no page waits or skips', () => {
    const m = new ClickMemory();
    const T = 'button|body|div|toggle|x';
    const a = m.forPage(SITE, '/a');
    const b = m.forPage(SITE, '/b');
    const c = m.forPage(SITE, '/c');
    a.take('ex-a-1', false, T);
    b.take('ex-b-1', false, T);
    expect(c.peek('ex-c-1', T)).toBe('wait');
    b.release('ex-b-1');
    b.end?.();
    expect(c.peek('ex-c-1', T)).toBe('click');
    a.observe('ex-a-1', seen(['/guide/a']), T);
    expect([c.take('ex-c-1', false, T), m.forPage(SITE, '/d').peek('ex-d-1', T)]).toEqual(['click', 'click']);
    c.observe('ex-c-1', seen([]), T);
    expect(m.forPage(SITE, '/e').peek('ex-e-1', T)).toBe('click');
  });
});
