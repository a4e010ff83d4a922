import { describe, expect, it } from 'vitest';
import {
  DEFAULT_STRIP_PARAMS,
  InvalidUrlError,
  isHashRoute,
  normalize,
  toRequestUrl,
  type NormalizeOptions,
} from '../../src/url/normalize.js';

/** [a, b, options?, rule] : normalize(a) must equal normalize(b). */
type Pair = [string, string, NormalizeOptions | undefined, string];

const same: Pair[] = [
  // Plain fragments (RFC 3986 §3.5)
  ['http://a.test/a#top', 'http://a.test/a', undefined, 'plain fragment dropped'],
  ['http://a.test/a#', 'http://a.test/a', undefined, 'empty fragment dropped'],
  ['http://a.test/a#section-2', 'http://a.test/a#other', undefined, 'any plain fragment dropped'],
  ['http://a.test/a?x=1#top', 'http://a.test/a?x=1', undefined, 'plain fragment after query'],
  // Case, ports, host (RFC 3986 §6.2.2.1, §6.2.3)
  ['HTTP://Example.COM:80/a', 'http://example.com/a', undefined, 'scheme/host case + default port'],
  ['https://a.test:443/', 'https://a.test/', undefined, 'https default port'],
  ['http://a.test:080/', 'http://a.test/', undefined, 'port with leading zero'],
  ['HTTPS://WWW.A.TEST/Path', 'https://www.a.test/Path', undefined, 'path case untouched'],
  ['http://example.com./', 'http://example.com/', undefined, 'trailing dot of host'],
  ['http://example.com.:80/a', 'http://example.com/a', undefined, 'trailing dot + default port'],
  ['http://bücher.example/', 'http://xn--bcher-kva.example/', undefined, 'IDN to punycode'],
  ['http://BÜCHER.example/', 'http://xn--bcher-kva.example/', undefined, 'IDN case-folded'],
  ['http://Ex%41mple.com/', 'http://example.com/', undefined, 'percent-encoded host decoded'],
  ['http://0x7f.0.0.1/', 'http://127.0.0.1/', undefined, 'IPv4 canonical form'],
  ['http://[0:0:0:0:0:0:0:1]:80/', 'http://[::1]/', undefined, 'IPv6 canonical form'],
  ['ws://a.test:80/s', 'ws://a.test/s', undefined, 'other special scheme default port'],
  // Path (RFC 3986 §6.2.2.3, §6.2.3)
  ['http://a.test', 'http://a.test/', undefined, 'empty path is /'],
  ['http://a.test/a/./b/../c', 'http://a.test/a/c', undefined, 'dot segments'],
  ['http://a.test/a/%2e%2E/b', 'http://a.test/b', undefined, 'encoded dot segments'],
  ['http://a.test/../../a', 'http://a.test/a', undefined, 'dot segments above root'],
  ['http://a.test\\a\\b', 'http://a.test/a/b', undefined, 'backslashes (WHATWG)'],
  // Percent-encoding (RFC 3986 §6.2.2.1, §6.2.2.2)
  ['http://a.test/%7e', 'http://a.test/~', undefined, '%7e is ~'],
  ['http://a.test/%7Euser', 'http://a.test/~user', undefined, '%7E is ~'],
  ['http://a.test/%41%42c', 'http://a.test/ABc', undefined, 'encoded ALPHA decoded'],
  ['http://a.test/%2D%2E%5F%31', 'http://a.test/-._1', undefined, 'encoded - . _ DIGIT decoded'],
  ['http://a.test/a%2fb', 'http://a.test/a%2Fb', undefined, 'hex uppercased, %2F kept'],
  ['http://a.test/a%c3%a9', 'http://a.test/aé', undefined, 'non-ASCII encoded, hex upper'],
  ['http://a.test/a b', 'http://a.test/a%20b', undefined, 'space encoded'],
  ['http://a.test/?q=%7e', 'http://a.test/?q=~', undefined, 'unreserved decoded in query'],
  ['http://a.test/?q=a%2cb', 'http://a.test/?q=a%2Cb', undefined, 'hex uppercased in query'],
  ['http://user%7e:p%3a@a.test/', 'http://user~:p%3A@a.test/', undefined, 'userinfo escapes'],
  // Query (RFC 3986 §6.2.3 and crawler conventions)
  ['http://a.test/a?', 'http://a.test/a', undefined, 'empty query removed'],
  ['http://a.test/a?b=2&a=1', 'http://a.test/a?a=1&b=2', undefined, 'params sorted'],
  ['http://a.test/?c=3&b=2&a=1', 'http://a.test/?a=1&b=2&c=3', undefined, 'three params sorted'],
  ['http://a.test/?b=1&a=2&a=1', 'http://a.test/?a=2&a=1&b=1', undefined, 'stable sort'],
  ['http://a.test/?a=1&&b=2&', 'http://a.test/?a=1&b=2', undefined, 'empty pieces dropped'],
  ['http://a.test/?%61=1', 'http://a.test/?a=1', undefined, 'encoded name normalized'],
  ['http://a.test/?utm_source=x&id=3', 'http://a.test/?id=3', undefined, 'utm_source'],
  ['http://a.test/?id=3&utm_medium=m&utm_campaign=c', 'http://a.test/?id=3', undefined, 'utm_*'],
  ['http://a.test/?UTM_Source=x', 'http://a.test/', undefined, 'tracking names case-insensitive'],
  ['http://a.test/?gclid=1&fbclid=2&msclkid=3', 'http://a.test/', undefined, 'ad click ids'],
  ['http://a.test/?dclid=1&yclid=2&igshid=3', 'http://a.test/', undefined, 'more click ids'],
  ['http://a.test/?mc_cid=1&mc_eid=2&x=1', 'http://a.test/?x=1', undefined, 'Mailchimp'],
  ['http://a.test/?_ga=1&_gl=2', 'http://a.test/?', undefined, 'GA linker'],
  ['http://a.test/?utm_source', 'http://a.test/', undefined, 'tracking name without value'],
  ['http://a.test/?PHPSESSID=abc&p=2', 'http://a.test/?p=2', undefined, 'PHPSESSID'],
  ['http://a.test/?jsessionid=abc&p=2', 'http://a.test/?p=2', undefined, 'JSESSIONID query'],
  ['http://a.test/?sid=1&sessionid=2&SID=3', 'http://a.test/', undefined, 'sid/sessionid'],
  ['http://a.test/cart;jsessionid=ABC', 'http://a.test/cart', undefined, ';jsessionid stripped'],
  ['http://a.test/cart;JSESSIONID=ABC?x=1', 'http://a.test/cart?x=1', undefined, ';JSESSIONID'],
  ['http://a.test/a;jsessionid=1;v=2/b', 'http://a.test/a;v=2/b', undefined, 'other ;params kept'],
  // Hash routes
  ['http://a.test/#/about', 'http://a.test/#/about', undefined, 'hash route kept (identity)'],
  ['http://a.test/#/search?b=2&a=1', 'http://a.test/#/search?a=1&b=2', undefined, 'route query sorted'],
  ['http://a.test/#/s?utm_source=x&q=1', 'http://a.test/#/s?q=1', undefined, 'route tracking'],
  ['http://a.test/#/s?utm_source=x', 'http://a.test/#/s', undefined, 'route empty query'],
  ['http://a.test/#/%7euser', 'http://a.test/#/~user', undefined, 'route percent-encoding'],
  ['http://a.test/?utm_source=x#!/about', 'http://a.test/#!/about', undefined, 'hashbang kept'],
  // Options
  ['http://a.test/a#top', 'http://a.test/a#top', { hashRoutes: 'keep' }, 'keep: plain kept'],
  ['http://a.test/a#', 'http://a.test/a', { hashRoutes: 'keep' }, 'keep: empty fragment dropped'],
  ['http://a.test/#/about', 'http://a.test/', { hashRoutes: 'drop' }, 'drop: route dropped'],
  ['http://a.test/#/a', 'http://a.test/#/b', { hashRoutes: 'drop' }, 'drop: routes merge'],
  ['http://a.test/?b=1&a=2', 'http://a.test/?a=2&b=1', { keepParams: true }, 'keepParams sorts'],
  ['http://a.test/?ref=tw&x=1', 'http://a.test/?x=1', { stripParams: ['ref'] }, 'stripParams exact'],
  ['http://a.test/?REF=tw', 'http://a.test/', { stripParams: ['ref'] }, 'stripParams case'],
  ['http://a.test/?pk_campaign=1&pk_kwd=2', 'http://a.test/', { stripParams: ['pk_*'] }, 'prefix'],
  [
    'http://a.test/?ref=1&utm_source=x',
    'http://a.test/?utm_source=x',
    { keepParams: true, stripParams: ['ref'] },
    'keepParams keeps defaults, stripParams still applied',
  ],
  ['http://a.test/docs/', 'http://a.test/docs', { foldTrailingSlash: true }, 'fold slash'],
  ['http://a.test/docs//', 'http://a.test/docs', { foldTrailingSlash: true }, 'fold slashes'],
  ['http://a.test/', 'http://a.test', { foldTrailingSlash: true }, 'root stays'],
  ['http://a.test/dir/index.html', 'http://a.test/dir/', { foldIndex: true }, 'fold index.html'],
  ['http://a.test/index.htm', 'http://a.test/', { foldIndex: true }, 'fold index.htm'],
  ['http://a.test/d/index.php?x=1', 'http://a.test/d/?x=1', { foldIndex: true }, 'fold index.php'],
  [
    'http://a.test/dir/index.html',
    'http://a.test/dir',
    { foldIndex: true, foldTrailingSlash: true },
    'fold index then slash',
  ],
];

const different: Pair[] = [
  ['http://a.test/#/about', 'http://a.test/#/contact', undefined, 'hash routes differ'],
  ['http://a.test/#/about', 'http://a.test/', undefined, 'hash route is not the root'],
  ['http://a.test/#/about', 'http://a.test/#!/about', undefined, '#/ vs #!/'],
  ['http://a.test/docs', 'http://a.test/docs/', undefined, 'trailing slash significant'],
  ['http://a.test/a%2fb', 'http://a.test/a/b', undefined, '%2F is not /'],
  ['http://a.test/a%252Cb', 'http://a.test/a%2Cb', undefined, 'no double decoding'],
  ['http://a.test/a%2Cb', 'http://a.test/a,b', undefined, 'reserved escape kept'],
  ['http://a.test/?a=2&a=1', 'http://a.test/?a=1&a=2', undefined, 'repeated names keep order'],
  ['http://a.test/Path', 'http://a.test/path', undefined, 'path is case-sensitive'],
  ['http://a.test/?q=A', 'http://a.test/?q=a', undefined, 'query values case-sensitive'],
  ['http://a.test/?q=a+b', 'http://a.test/?q=a%20b', undefined, '+ is not %20'],
  ['http://a.test/?a', 'http://a.test/?a=', undefined, 'no value vs empty value'],
  ['http://a.test/', 'https://a.test/', undefined, 'scheme significant'],
  ['http://a.test:8080/', 'http://a.test/', undefined, 'non-default port kept'],
  ['http://a.test:443/', 'https://a.test/', undefined, 'http on 443 is not https'],
  ['http://a.test/', 'http://www.a.test/', undefined, 'www is another host'],
  ['http://a.test/dir/index.html', 'http://a.test/dir/', undefined, 'no index folding by default'],
  ['http://a.test/?sidebar=1', 'http://a.test/', undefined, 'sid is exact, not a prefix'],
  ['http://a.test/?utm_source=x', 'http://a.test/', { keepParams: true }, 'keepParams keeps'],
  ['http://a.test/x;jsessionid=1', 'http://a.test/x', { keepParams: true }, 'keepParams path'],
  ['http://a.test/a#top', 'http://a.test/a', { hashRoutes: 'keep' }, 'keep: plain fragment'],
  ['http://a.test/a#top', 'http://a.test/a#bottom', { hashRoutes: 'keep' }, 'keep: distinct'],
  ['http://a.test/?reference=1', 'http://a.test/', { stripParams: ['ref'] }, 'exact, no prefix'],
  ['http://a.test/docs', 'http://a.test/docs/', { foldIndex: true }, 'foldIndex not slash'],
  ['http://a.test/INDEX.HTML', 'http://a.test/', { foldIndex: true }, 'index fold case-sensitive'],
  ['http://a.test/myindex.html', 'http://a.test/my', { foldIndex: true }, 'whole segment only'],
];

describe('normalize: equivalent spellings give one key', () => {
  it.each(same)('%s ≡ %s (%o) — %s', (a, b, options) => {
    expect(normalize(a, options)).toBe(normalize(b, options));
  });
});

describe('normalize: different pages keep different keys', () => {
  it.each(different)('%s ≢ %s (%o) — %s', (a, b, options) => {
    expect(normalize(a, options)).not.toBe(normalize(b, options));
  });
});

describe('normalize: exact output', () => {
  it.each<[string, string, NormalizeOptions | undefined]>([
    ['HTTP://Example.COM:80/a/./b/../c?utm_source=x&b=2&a=1#top', 'http://example.com/a/c?a=1&b=2', undefined],
    ['http://a.test', 'http://a.test/', undefined],
    ['http://a.test/a%252Cb', 'http://a.test/a%252Cb', undefined],
    ['http://a.test/a%2fb%7e', 'http://a.test/a%2Fb~', undefined],
    ['http://example.com./', 'http://example.com/', undefined],
    ['http://bücher.example/', 'http://xn--bcher-kva.example/', undefined],
    ['http://a.test/#/search?b=2&a=1', 'http://a.test/#/search?a=1&b=2', undefined],
    ['http://a.test/#!/about', 'http://a.test/#!/about', undefined],
    ['http://a.test/?q=a+b&p=x%20y', 'http://a.test/?p=x%20y&q=a+b', undefined],
    ['http://a.test/cart;jsessionid=ABC?x=1', 'http://a.test/cart?x=1', undefined],
    ['http://a.test/a#top', 'http://a.test/a#top', { hashRoutes: 'keep' }],
    ['mailto:Someone@Example.com#x', 'mailto:Someone@Example.com', undefined],
    ['file:///tmp/a/../b', 'file:///tmp/b', undefined],
  ])('%s → %s', (input, expected, options) => {
    expect(normalize(input, options)).toBe(expected);
  });

  it('accepts a URL object without mutating it', () => {
    const url = new URL('http://A.test/b?utm_source=x#top');
    expect(normalize(url)).toBe('http://a.test/b');
    expect(url.href).toBe('http://a.test/b?utm_source=x#top');
  });

  it('is idempotent', () => {
    for (const [a, , options] of [...same, ...different]) {
      const once = normalize(a, options);
      expect(normalize(once, options)).toBe(once);
    }
  });

  it.each(['', 'not a url', '/relative/path', 'http://', 'http://exa mple.com/', 'http://[::1/'])(
    'throws InvalidUrlError for %j',
    (input) => {
      expect(() => normalize(input)).toThrow(InvalidUrlError);
      try {
        normalize(input);
      } catch (error) {
        expect(error).toBeInstanceOf(Error);
        expect((error as InvalidUrlError).code).toBe('invalid-url');
        expect((error as InvalidUrlError).input).toBe(input);
      }
    },
  );

  it('exports a frozen default strip list', () => {
    expect(DEFAULT_STRIP_PARAMS).toContain('utm_*');
    expect(DEFAULT_STRIP_PARAMS).toContain('jsessionid');
    expect(Object.isFrozen(DEFAULT_STRIP_PARAMS)).toBe(true);
  });
});

describe('isHashRoute', () => {
  it.each<[string, boolean]>([
    ['#/about', true],
    ['/about', true],
    ['#!/about', true],
    ['!about', true],
    ['#top', false],
    ['top', false],
    ['#', false],
    ['', false],
  ])('%j → %s', (fragment, expected) => {
    expect(isHashRoute(fragment)).toBe(expected);
  });
});

describe('toRequestUrl: what goes on the wire', () => {
  it.each<[string, string, Pick<NormalizeOptions, 'hashRoutes'> | undefined]>([
    ['http://a.test/a?b=2&a=1', 'http://a.test/a?b=2&a=1', undefined], // order kept
    ['http://a.test/a%7e%2f?q=%7e', 'http://a.test/a%7e%2f?q=%7e', undefined], // escapes kept
    ['http://a.test/?utm_source=x', 'http://a.test/?utm_source=x', undefined], // nothing stripped
    ['http://a.test/a#top', 'http://a.test/a', undefined], // plain fragment dropped
    ['http://a.test/a#', 'http://a.test/a', undefined], // empty fragment dropped
    ['http://a.test/#/x', 'http://a.test/#/x', undefined], // hash route kept
    ['http://a.test/#/s?b=2&a=1', 'http://a.test/#/s?b=2&a=1', undefined], // route untouched
    ['http://a.test/a#top', 'http://a.test/a#top', { hashRoutes: 'keep' }],
    ['http://a.test/#/x', 'http://a.test/', { hashRoutes: 'drop' }],
    ['HTTP://A.test:80/a b', 'http://a.test/a%20b', undefined], // as the browser resolves it
    ['http://example.com./x', 'http://example.com./x', undefined], // trailing dot kept
    ['http://a.test/x;jsessionid=1', 'http://a.test/x;jsessionid=1', undefined],
  ])('%s → %s', (input, expected, options) => {
    expect(toRequestUrl(input, options)).toBe(expected);
  });

  it('throws InvalidUrlError for unparsable input', () => {
    expect(() => toRequestUrl('nope')).toThrow(InvalidUrlError);
  });
});
