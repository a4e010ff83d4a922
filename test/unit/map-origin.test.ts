import { describe, expect, it } from 'vitest';
import { mapRecordOrigins, mapUrl, parseOriginMaps } from '../../src/diff/map-origin.js';
import { DiffInputError } from '../../src/diff/errors.js';
import { blankRecord } from '../../src/model/record.js';

const PROD = 'https://example.com';
const PREVIEW = 'http://127.0.0.1:4001';

/** The message of what `parseOriginMaps(values)` throws. */
function refusal(...values: string[]): string {
  try {
    parseOriginMaps(values);
  } catch (err) {
    expect(err).toBeInstanceOf(DiffInputError);
    return (err as Error).message;
  }
  throw new Error(`accepted ${values.join(' ')}`);
}

describe('--map-origin values', () => {
  it('OLD=NEW: two origins, written as URL.origin writes them (a trailing / and a default port dropped)', () => {
    expect([...parseOriginMaps([`${PROD}=${PREVIEW}`])]).toEqual([[PROD, PREVIEW]]);
    expect([...parseOriginMaps(['https://Example.com:443/=http://127.0.0.1:4001/', 'https://cdn.example.com=http://127.0.0.1:4002'])]).toEqual([
      [PROD, PREVIEW],
      ['https://cdn.example.com', 'http://127.0.0.1:4002'],
    ]);
  });

  it('a malformed value is one line naming it and the expected form', () => {
    const expected = 'expected OLD=NEW, two origins, e.g. https://example.com=http://127.0.0.1:4001';
    expect(refusal('foo')).toBe(`--map-origin "foo": ${expected}`);
    expect(refusal('http://a=')).toBe(`--map-origin "http://a=": NEW is empty: ${expected}`);
    expect(refusal('=http://a')).toBe(`--map-origin "=http://a": OLD is empty: ${expected}`);
    expect(refusal('http://a=http://b=http://c')).toBe(`--map-origin "http://a=http://b=http://c": ${expected}`);
    expect(refusal('https://example.com/docs=http://b')).toBe(`--map-origin "https://example.com/docs=http://b": OLD "https://example.com/docs" is not an http(s) origin (scheme://host[:port], no path): ${expected}`);
    expect(refusal('http://a=ftp://b')).toBe(`--map-origin "http://a=ftp://b": NEW "ftp://b" is not an http(s) origin (scheme://host[:port], no path): ${expected}`);
    expect(refusal('http://a=http://a/')).toBe('--map-origin "http://a=http://a/": OLD and NEW are the same origin');
    expect(refusal('http://a=http://b', 'http://a=http://c')).toBe('--map-origin "http://a=http://c": http://a is already mapped to http://b');
  });
});

describe('mapping a record', () => {
  const map = parseOriginMaps([`${PROD}=${PREVIEW}`]);

  it('a URL on OLD keeps its path, query and fragment on NEW; other origins and other schemes are left alone', () => {
    expect(mapUrl(`${PROD}/docs/a?x=1#top`, map)).toBe(`${PREVIEW}/docs/a?x=1#top`);
    expect(mapUrl(PROD, map)).toBe(PREVIEW);
    expect(mapUrl(`${PROD}?q`, map)).toBe(`${PREVIEW}?q`);
    expect(mapUrl('HTTPS://EXAMPLE.COM:443/A', map)).toBe(`${PREVIEW}/A`);
    expect(mapUrl('https://example.com.evil.test/', map)).toBe('https://example.com.evil.test/');
    expect(mapUrl('http://example.com/', map)).toBe('http://example.com/');
    expect(mapUrl('https://other.test/x', map)).toBe('https://other.test/x');
    expect(mapUrl('mailto:ada@example.com', map)).toBe('mailto:ada@example.com');
  });

  it('every URL field of a record is mapped; the canonical and the messages are kept as written', () => {
    const r = {
      ...blankRecord(`${PROD}/go`, `${PROD}/go`, 1, `${PROD}/`),
      finalUrl: `${PROD}/docs`,
      redirectChain: [{ url: `${PROD}/go`, status: 301, kind: 'http' as const }],
      duplicateOf: `${PROD}/docs/`,
      links: [`${PROD}/a`],
      linkDetails: [
        { url: `${PROD}/a`, text: 'A', source: 'anchor' as const, nofollow: false },
        { url: 'https://other.test/x', text: 'X', source: 'anchor' as const, nofollow: false },
      ],
      externalLinks: ['https://other.test/x'],
      fragmentLinks: [{ url: `${PROD}/a`, fragment: 'top', text: 'A' }],
      linkChecks: [{ url: `${PROD}/insecure`, kind: 'link' as const, method: 'HEAD' as const, status: 200, blockedBy: null, error: null }],
      failedRequests: [{ url: `${PROD}/app.js`, status: 404, failure: null, resourceType: 'script' }],
      mixedContent: ['http://cdn.test/a.png'],
      frames: [`${PROD}/frame`],
      downloads: [`${PROD}/file.zip`],
      meta: { description: null, canonical: `${PROD}/docs`, h1Count: 1 },
      consoleErrors: [`Failed to load ${PROD}/app.js`],
    };
    const m = mapRecordOrigins(r, map);
    expect(m).toEqual({
      ...r,
      url: `${PREVIEW}/go`,
      requestedUrl: `${PREVIEW}/go`,
      referrer: `${PREVIEW}/`,
      finalUrl: `${PREVIEW}/docs`,
      redirectChain: [{ url: `${PREVIEW}/go`, status: 301, kind: 'http' }],
      duplicateOf: `${PREVIEW}/docs/`,
      links: [`${PREVIEW}/a`],
      linkDetails: [
        { url: `${PREVIEW}/a`, text: 'A', source: 'anchor', nofollow: false },
        { url: 'https://other.test/x', text: 'X', source: 'anchor', nofollow: false },
      ],
      fragmentLinks: [{ url: `${PREVIEW}/a`, fragment: 'top', text: 'A' }],
      linkChecks: [{ url: `${PREVIEW}/insecure`, kind: 'link', method: 'HEAD', status: 200, blockedBy: null, error: null }],
      failedRequests: [{ url: `${PREVIEW}/app.js`, status: 404, failure: null, resourceType: 'script' }],
      frames: [`${PREVIEW}/frame`],
      downloads: [`${PREVIEW}/file.zip`],
    });
    expect(r.url).toBe(`${PROD}/go`); // the record read is not changed
  });
});
