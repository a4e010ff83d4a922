import { describe, expect, it } from 'vitest';
import { InvalidUrlError } from '../../src/url/normalize.js';
import {
  InvalidPatternError,
  Scope,
  compilePattern,
  type ScopeOptions,
  type ScopeRejection,
} from '../../src/url/scope.js';

/** [seeds, options, url, expected reason (null = in scope), what it shows] */
type Case = [readonly string[], ScopeOptions | undefined, string, ScopeRejection | null, string];

const host = undefined;
const subdomains: ScopeOptions = { mode: 'subdomains' };
const domain: ScopeOptions = { mode: 'domain' };

const cases: Case[] = [
  // host (default)
  [['http://a.test/'], host, 'http://a.test/page', null, 'same host'],
  [['http://a.test/'], host, 'https://a.test:443/', null, 'http/https default ports are one site'],
  [['https://a.test/'], host, 'http://a.test:80/x', null, 'and the other way round'],
  [['http://a.test/'], host, 'HTTP://A.TEST./x#top', null, 'raw URL normalized first'],
  [['http://a.test/'], host, 'http://www.a.test/', 'host', 'subdomain is another host'],
  [['http://a.test/'], host, 'http://a.test:8080/', 'host', 'explicit port differs'],
  [['http://127.0.0.1:8080/'], host, 'http://127.0.0.1:8080/x', null, 'same IP and port'],
  [['http://127.0.0.1:8080/'], host, 'http://127.0.0.1:8081/', 'host', 'other port'],
  [['http://127.0.0.1:8080/'], host, 'https://127.0.0.1:8080/', null, 'same explicit port'],
  [['http://a.test/'], host, 'http://a.test:443/', 'host', 'http on 443 is not the default'],
  [['http://a.test/'], host, 'http://b.test/', 'host', 'other host'],
  // subdomains
  [['https://a.test/'], subdomains, 'https://docs.a.test/x', null, 'subdomain'],
  [['https://a.test/'], subdomains, 'http://x.y.a.test/', null, 'deep subdomain, default port'],
  [['https://a.test/'], subdomains, 'https://a.test/', null, 'the host itself'],
  [['https://a.test/'], subdomains, 'https://docs.a.test:8443/', 'host', 'non-default port'],
  [['https://a.test/'], subdomains, 'https://nota.test/', 'host', 'suffix is not a subdomain'],
  [['https://www.a.test/'], subdomains, 'https://a.test/', 'host', 'parent is not a subdomain'],
  [['http://a.test:8080/'], subdomains, 'http://b.a.test:8080/', null, 'same explicit port'],
  [['http://a.test:8080/'], subdomains, 'http://b.a.test/', 'host', 'explicit seed port'],
  // domain
  [['https://shop.example.co.uk/'], domain, 'https://blog.example.co.uk/', null, 'same eTLD+1'],
  [['https://shop.example.co.uk/'], domain, 'https://example.co.uk/', null, 'the apex'],
  [['https://shop.example.co.uk/'], domain, 'https://other.co.uk/', 'host', 'other domain'],
  [['https://a.github.io/'], domain, 'https://b.github.io/', 'host', 'private suffix honoured'],
  [['https://a.github.io/'], domain, 'https://x.a.github.io/', null, 'under a private suffix'],
  [['https://www.a.test/'], domain, 'https://a.test/', null, 'parent in domain mode'],
  // IP and localhost fall back to host
  [['http://127.0.0.1:8080/'], domain, 'http://127.0.0.2:8080/', 'host', 'IP: domain → host'],
  [['http://[::1]:8080/'], subdomains, 'http://[::2]:8080/', 'host', 'IPv6: subdomains → host'],
  [['http://localhost:3000/'], subdomains, 'http://a.localhost:3000/', 'host', 'localhost'],
  [['http://localhost:3000/'], domain, 'http://localhost:3000/x', null, 'localhost itself'],
  [['http://[::1]:8080/'], domain, 'http://[::1]:8080/x', null, 'IPv6 itself'],
  // several seeds
  [['http://a.test/', 'http://b.test/'], host, 'http://b.test/x', null, 'second seed'],
  [['http://a.test/', 'http://b.test/'], host, 'http://c.test/x', 'host', 'neither seed'],
  [['http://a.test/', 'https://b.test/'], subdomains, 'https://x.b.test/', null, 'widened per seed'],
  // schemes and credentials
  [['http://a.test/'], host, 'mailto:me@a.test', 'scheme', 'mailto'],
  [['http://a.test/'], host, 'javascript:void(0)', 'scheme', 'javascript'],
  [['http://a.test/'], host, 'ftp://a.test/file', 'scheme', 'ftp'],
  [['http://a.test/'], host, 'data:text/html,hi', 'scheme', 'data'],
  [['http://a.test/'], host, 'not a url', 'scheme', 'unparsable'],
  [['http://a.test/'], host, 'http://user:pw@a.test/', 'credentials', 'user and password'],
  [['http://a.test/'], host, 'http://user@a.test/', 'credentials', 'user only'],
  // include / exclude
  [['http://a.test/'], { exclude: ['**/logout*'] }, 'http://a.test/account/logout', 'excluded', 'glob'],
  [['http://a.test/'], { exclude: ['**/logout*'] }, 'http://a.test/account/', null, 'not excluded'],
  [['http://a.test/'], { exclude: ['/\\.pdf$/i'] }, 'http://a.test/x.PDF', 'excluded', 'regex'],
  [['http://a.test/'], { include: ['http://a.test/docs/**'] }, 'http://a.test/docs/a/b', null, '**'],
  [['http://a.test/'], { include: ['http://a.test/docs/*'] }, 'http://a.test/docs/a/b', 'not-included', '* stops at /'],
  [['http://a.test/'], { include: ['http://a.test/docs/*'] }, 'http://a.test/docs/a', null, '* segment'],
  [['http://a.test/'], { include: ['http://a.test/docs/**'] }, 'http://a.test/', null, 'seed allowed'],
  [['http://a.test/'], { include: ['http://a.test/docs/**'] }, 'http://a.test/blog', 'not-included', 'include'],
  [['http://a.test/'], { include: ['http://a.test/p?'] }, 'http://a.test/p2', null, '? one char'],
  [['http://a.test/'], { include: ['http://a.test/p?'] }, 'http://a.test/p22', 'not-included', '? only one'],
  [
    ['http://a.test/'],
    { include: ['http://a.test/docs/**'], exclude: ['**/private/**'] },
    'http://a.test/docs/private/x',
    'excluded',
    'exclude wins over include',
  ],
  [['http://a.test/'], { exclude: ['http://a.test/'] }, 'http://a.test/', 'excluded', 'exclude wins over seed'],
  [['http://a.test/'], { include: ['/[?&]page=\\d+/'] }, 'http://a.test/list?page=2', null, 'regex search'],
  [['http://a.test/'], { include: ['**?utm_source=*'] }, 'http://a.test/p?utm_source=x', 'not-included', 'patterns see canonical URL'],
  [['http://a.test/'], { exclude: ['**/b'] }, 'http://b.test/b', 'host', 'host is checked before patterns'],
];

describe('Scope', () => {
  it.each(cases)('%j %o: %s → %s (%s)', (seeds, options, url, expected) => {
    const scope = new Scope(seeds, options);
    expect(scope.reason(url)).toBe(expected);
    expect(scope.inScope(url)).toBe(expected === null);
  });

  it('defaults to host mode', () => {
    expect(new Scope(['http://a.test/']).mode).toBe('host');
    expect(new Scope(['http://a.test/'], { mode: 'domain' }).mode).toBe('domain');
  });

  it('addRoot widens the scope (e.g. after a redirect) and counts as a seed for include', () => {
    const scope = new Scope(['http://a.test/'], { include: ['**/docs/**'] });
    expect(scope.reason('https://www.a.test/')).toBe('host');
    scope.addRoot('https://www.a.test/');
    expect(scope.reason('https://www.a.test/')).toBe(null);
    expect(scope.reason('https://www.a.test/docs/x')).toBe(null);
    expect(scope.reason('https://www.a.test/blog')).toBe('not-included');
    expect(scope.roots()).toEqual(['a.test', 'www.a.test']);
  });

  it('addRoot validates like a seed', () => {
    const scope = new Scope([]);
    expect(scope.reason('http://a.test/')).toBe('host');
    expect(() => scope.addRoot('mailto:x@a.test')).toThrow(InvalidUrlError);
    expect(() => scope.addRoot('nope')).toThrow(InvalidUrlError);
  });

  it('roots() shows site keys, deduplicated', () => {
    expect(new Scope(['http://a.test/', 'https://a.test/x', 'http://b.test:8080/']).roots()).toEqual([
      'a.test',
      'b.test:8080',
    ]);
    expect(new Scope(['https://a.test/'], { mode: 'subdomains' }).roots()).toEqual(['*.a.test']);
    expect(new Scope(['https://shop.example.co.uk/'], { mode: 'domain' }).roots()).toEqual([
      '*.example.co.uk',
    ]);
    expect(new Scope(['http://127.0.0.1:8080/'], { mode: 'domain' }).roots()).toEqual([
      '127.0.0.1:8080',
    ]);
  });

  it('matches patterns against the crawler’s canonical form when given its normalize options', () => {
    const scope = new Scope(['http://a.test/'], {
      include: ['**#/docs/**'],
      normalize: { hashRoutes: 'keep' },
    });
    expect(scope.reason('http://a.test/#/docs/x')).toBe(null);
    expect(scope.reason('http://a.test/#/blog')).toBe('not-included');
  });

  it.each([
    ['ftp://a.test/', 'only http: and https:'],
    ['mailto:me@a.test', 'only http: and https:'],
    ['http://user:pw@a.test/', 'user name or password'],
    ['http://user@a.test/', 'user name or password'],
    ['/relative', 'not a valid absolute URL'],
  ])('refuses seed %j with InvalidUrlError', (seed, message) => {
    expect(() => new Scope([seed])).toThrow(InvalidUrlError);
    expect(() => new Scope([seed])).toThrow(message);
  });
});

describe('compilePattern', () => {
  it.each<[string, string, boolean]>([
    ['https://a.test/*', 'https://a.test/x', true],
    ['https://a.test/*', 'https://a.test/x/y', false],
    ['https://a.test/**', 'https://a.test/x/y', true],
    ['https://a.test/**', 'https://a.test', false],
    ['**.pdf', 'https://a.test/f.pdf', true],
    ['**.pdf', 'https://a.test/fxpdf', false], // '.' is literal
    ['https://a.test/a+b(1)', 'https://a.test/a+b(1)', true], // regex specials are literal
    ['https://a.test/?x=1', 'https://a.test/?x=1', true], // '?' also matches itself
    ['https://a.test/x', 'https://a.test/x/more', false], // anchored
    ['/\\/admin\\//', 'https://a.test/admin/users', true], // regex is searched
    ['/^https:/', 'http://a.test/', false],
    ['/ADMIN/i', 'https://a.test/admin', true],
    // A glob starting with '/' is a path, on any host; a regex literal's flags are JavaScript's.
    ['/admin/**', 'https://a.test/admin/users?page=2', true],
    ['/admin/**', 'http://b.test:8080/admin/x', true],
    ['/admin/**', 'https://a.test/admin', false],
    ['/admin/**', 'https://a.test/en/admin/x', false],
    ['/docs/*', 'https://a.test/docs/intro', true],
    ['/docs/*', 'https://a.test/docs/intro/more', false],
    ['/docs/api', 'https://a.test/docs/api', true],
    ['/docs/api', 'https://a.test/docs/api/v2', false],
    ['/blog/is', 'https://a.test/BLOG/x', true], // flags i and s: a regex, searched
  ])('%s vs %s → %s', (pattern, url, expected) => {
    expect(compilePattern(pattern).test(url)).toBe(expected);
  });

  it('drops the stateful g and y flags', () => {
    const re = compilePattern('/a/gy');
    expect(re.flags).toBe('');
    expect(re.test('a')).toBe(true);
    expect(re.test('a')).toBe(true);
  });

  it.each(['/(/', '/[a-/', '/a)/s', ''])('throws a one-line InvalidPatternError for %j', (pattern) => {
    let caught: unknown;
    try {
      compilePattern(pattern);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidPatternError);
    const error = caught as InvalidPatternError;
    expect(error.code).toBe('invalid-pattern');
    expect(error.pattern).toBe(pattern);
    expect(error.message).not.toContain('\n');
    expect(error.message).toContain(JSON.stringify(pattern));
  });

  it('the Scope constructor reports bad patterns', () => {
    expect(() => new Scope(['http://a.test/'], { exclude: ['/(/'] })).toThrow(InvalidPatternError);
  });
});
