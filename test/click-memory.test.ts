import { describe, expect, it } from 'vitest';
import { ClickMemory, type ClickObservation } from '../src/browser/click-memory.js';

const SITE = 'http://127.0.0.1:1';
const seen = (revealed: string[], present: string[] = []): ClickObservation => ({ revealed: new Set(revealed), present: new Set([...revealed, ...present]) });

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

  it('while one page learns a control, others wait (or click when forced); a release frees it', () => {
    const m = new ClickMemory();
    const a = m.forPage(SITE, '/a');
    const b = m.forPage(SITE, '/b');
    expect(a.take('menu', false)).toBe('click');
    expect(b.peek('menu')).toBe('wait');
    expect(b.take('menu', false)).toBe('wait');
    expect(b.take('menu', true)).toBe('click');
    a.release('menu');
    expect(b.peek('menu')).toBe('click');
    expect(b.take('menu', false)).toBe('click');
    expect(a.peek('menu')).toBe('wait');
    b.observe('menu', seen(['/docs']));
    expect(a.take('menu', false)).toBe('click');
    a.observe('menu', seen(['/docs']));
    expect(m.kindOf(SITE, 'menu')).toBe('chrome');
  });
});
