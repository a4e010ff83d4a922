import { describe, expect, it } from 'vitest';
import { parseUnavailableAfter, robotsRulesFor, splitRules } from '../src/crawl/robots-directives.js';

// Google, "Robots meta tag, data-nosnippet, and X-Robots-Tag specifications".
const NOW = Date.parse('2026-06-01T00:00:00Z');
const rules = (headers: string[], metas: [string, string][] = [], agent = 'spacrawl') =>
  robotsRulesFor(agent, { headers, metas: metas.map(([name, content]) => ({ name, content })) }, NOW);
const NONE = { noindex: false, nofollow: false };

describe('X-Robots-Tag: rules addressed to another agent are not ours', () => {
  it('otherbot: nofollow applies to otherbot only', () => {
    expect(rules(['otherbot: nofollow'])).toEqual(NONE);
    expect(rules(['otherbot: nofollow'], [], 'otherbot')).toEqual({ noindex: false, nofollow: true });
  });
  it('our token, in any case, applies to us', () => {
    expect(rules(['spacrawl: nofollow'])).toEqual({ noindex: false, nofollow: true });
    expect(rules(['SpaCrawl: NoIndex'])).toEqual({ noindex: true, nofollow: false });
  });
  it('the token is --robots-agent, not a hard-coded name', () => {
    expect(rules(['spacrawl: noindex, nofollow'], [], 'mybot')).toEqual(NONE);
    expect(rules(['MyBot: none'], [], 'mybot')).toEqual({ noindex: true, nofollow: true });
  });
  it('rules without an agent apply to every crawler', () => {
    expect(rules(['noindex'])).toEqual({ noindex: true, nofollow: false });
    expect(rules(['NOFOLLOW'])).toEqual({ noindex: false, nofollow: true });
  });
  it('an agent prefix applies to the rules after it in the same line, up to the next prefix', () => {
    expect(rules(['otherbot: noindex, nofollow'])).toEqual(NONE);
    expect(rules(['noindex, otherbot: nofollow'])).toEqual({ noindex: true, nofollow: false });
    expect(rules(['otherbot: noindex, spacrawl: nofollow'])).toEqual({ noindex: false, nofollow: true });
  });
  it('each header line starts general again (several X-Robots-Tag lines)', () => {
    expect(rules(['otherbot: noindex', 'nofollow'])).toEqual({ noindex: false, nofollow: true });
    expect(rules(['googlebot: nofollow', 'otherbot: noindex, nofollow'])).toEqual(NONE);
  });
  it('none is noindex and nofollow; all, index and follow restrict nothing', () => {
    expect(rules(['none'])).toEqual({ noindex: true, nofollow: true });
    expect(rules(['all'])).toEqual(NONE);
    expect(rules(['index, follow'])).toEqual(NONE);
  });
  it('general and specific rules combine; the more restrictive wins a conflict', () => {
    expect(rules(['noindex', 'spacrawl: all'])).toEqual({ noindex: true, nofollow: false });
    expect(rules(['spacrawl: nofollow', 'index, follow'])).toEqual({ noindex: false, nofollow: true });
    expect(rules(['noindex'], [['spacrawl', 'nofollow']])).toEqual({ noindex: true, nofollow: true });
  });
  it('other rules (max-snippet, noarchive, nosnippet) are neither noindex nor nofollow', () => {
    expect(rules(['max-snippet: 20, noarchive, nosnippet, max-image-preview: large'])).toEqual(NONE);
    expect(rules(['spacrawl: max-snippet: 20, nofollow'])).toEqual({ noindex: false, nofollow: true });
  });
});

describe('unavailable_after', () => {
  it('a passed date is a noindex, in RFC 822, RFC 850 and ISO 8601 form', () => {
    expect(rules(['unavailable_after: 25 Jun 2010 15:00:00 PST'])).toEqual({ noindex: true, nofollow: false });
    expect(rules(['unavailable_after: Friday, 25-Jun-10 15:00:00 PST'])).toEqual({ noindex: true, nofollow: false });
    expect(rules(['unavailable_after: Fri, 25 Jun 2010 15:00:00 GMT, nofollow'])).toEqual({ noindex: true, nofollow: true });
    expect(rules(['spacrawl: unavailable_after: 2010-06-25T15:00:00-08:00'])).toEqual({ noindex: true, nofollow: false });
  });
  it('a future date, an unreadable one, or another agent\'s is not', () => {
    expect(rules(['unavailable_after: 1 Jan 3000 00:00:00 GMT'])).toEqual(NONE);
    expect(rules(['unavailable_after: garbage 2'])).toEqual(NONE);
    expect(rules(['otherbot: unavailable_after: 25 Jun 2010 15:00:00 PST'])).toEqual(NONE);
    expect(rules([], [['robots', 'unavailable_after: 2010-06-25']])).toEqual({ noindex: true, nofollow: false });
  });
  it('parseUnavailableAfter reads only what looks like a date', () => {
    expect(parseUnavailableAfter('2010-06-25')).toBe(Date.parse('2010-06-25'));
    expect(parseUnavailableAfter('friday')).toBeNull();
    expect(parseUnavailableAfter('42')).toBeNull();
  });
});

describe('<meta name>: robots is general, a named tag is that agent\'s', () => {
  it('<meta name="otherbot" content="noindex"> is not ours', () => {
    expect(rules([], [['otherbot', 'noindex, nofollow']])).toEqual(NONE);
    expect(rules([], [['googlebot', 'none']])).toEqual(NONE);
  });
  it('<meta name="robots"> and our own name apply, case-insensitively', () => {
    expect(rules([], [['ROBOTS', 'NoIndex']])).toEqual({ noindex: true, nofollow: false });
    expect(rules([], [['Spacrawl', 'nofollow']])).toEqual({ noindex: false, nofollow: true });
    expect(rules([], [['robots', 'all'], ['spacrawl', 'none']])).toEqual({ noindex: true, nofollow: true });
  });
  it('other meta tags are not robots rules', () => {
    expect(rules([], [['description', 'noindex, nofollow'], ['viewport', 'width=device-width']])).toEqual(NONE);
  });
  it('a meta content has no agent prefixes: "otherbot: noindex" there is ignored', () => {
    expect(rules([], [['robots', 'otherbot: noindex, nofollow']])).toEqual({ noindex: false, nofollow: true });
  });
});

describe('splitRules', () => {
  it('keeps the agent of each rule', () => {
    expect(splitRules('noindex, OtherBot: nofollow, noarchive', true)).toEqual([
      { agent: null, name: 'noindex', value: '' },
      { agent: 'otherbot', name: 'nofollow', value: '' },
      { agent: 'otherbot', name: 'noarchive', value: '' },
    ]);
  });
});
