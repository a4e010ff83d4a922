import http from 'node:http';
import { createRequire } from 'node:module';
import type net from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { ConnectError, connectToOrigin, parseProxy, proxyAuthorization, type ProxyServer } from './connect.js';
import type * as ToughCookie from 'tough-cookie';

/** tough-cookie's jar, loaded by `require()` (as tldts in `url/scope.ts`: ~34 ms of a crawl's start as an ES import, ~13 so). */
const { CookieJar } = createRequire(import.meta.url)('tough-cookie') as typeof ToughCookie;

/** Settings shared by every request of one {@link HttpClient}: the crawl's browser-level settings. */
export interface HttpClientOptions {
  /** The `User-Agent` header of every request. */
  userAgent: string;
  /** Proxy server URL (`http://`, `https://`, `socks4://`, `socks5://`), or `null` for none. */
  proxy?: string | null;
  /** Accept invalid TLS certificates. @default false */
  ignoreHttpsErrors?: boolean;
  /**
   * Extra headers for one request URL, asked again for every redirect hop (the crawl's
   * `--header` values go to in-scope URLs only). @default none
   */
  headersFor?: (url: string) => Record<string, string>;
}

/** One request of {@link HttpClient.request}. */
export interface HttpRequestOptions {
  /** @default 'GET' */
  method?: 'GET' | 'HEAD';
  /** Cap on the whole request: connecting, every redirect hop and reading the body (ms). */
  timeoutMs: number;
  /**
   * Redirects followed (301, 302, 303, 307, 308 with a `Location`). With 0 the 3xx response is
   * returned as is; one more redirect than allowed fails the request. @default 0
   */
  maxRedirects?: number;
  /** Most body bytes kept, after decoding `Content-Encoding`; the rest is not read. @default 0 (body discarded) */
  maxBodyBytes?: number;
  /** The `Accept` header (an in-scope `--header Accept` replaces it). @default '*\/*' */
  accept?: string;
}

/** What {@link HttpClient.request} got. */
export interface HttpResponse {
  status: number;
  /** The URL that answered (after redirects). */
  url: string;
  /** Response headers, names lowercased, repeated ones joined with `, `. */
  headers: Record<string, string>;
  /** The body, decoded, up to `maxBodyBytes`. */
  body: Buffer;
  /** `true` when the body was longer than `maxBodyBytes` and was cut there. */
  truncated: boolean;
}

/**
 * Why a request got no usable answer: `timeout`; `network` (connection, proxy, TLS, protocol);
 * or `redirect`: the server did answer, but with redirects that lead nowhere usable (more than
 * `maxRedirects` of them, a `Location` that is not a URL, or one that is not http(s)).
 */
export class HttpRequestError extends Error {
  constructor(
    readonly code: 'timeout' | 'network' | 'redirect',
    message: string,
    /**
     * The HTTP status that did arrive before the failure: the last redirect's (3xx) for
     * `redirect`; the response's when its body was cut off or too slow (`network`, `timeout`);
     * `null` when no response arrived at all.
     */
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'HttpRequestError';
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The one HTTP client for every request spacrawl makes outside the browser (robots.txt,
 * sitemaps, link checks). It reaches origins the way the browser does with the same `--proxy`
 * (see `connectToOrigin`): plain forward-proxy requests in absolute form for `http://` URLs,
 * `CONNECT` tunnels only for `https://`, SOCKS4/5 for `socks` proxies. Each request uses its own
 * connection (`Connection: close`); bodies are decoded (`gzip`, `deflate`, `br`) and cut at
 * `maxBodyBytes`. Cookies set along a redirect chain are sent on its later hops, as a browser
 * sends them (RFC 6265, by tough-cookie: a server that redirects a client without its cookie to
 * the same URL with a `Set-Cookie`, a consent or session gate, loops forever for a client that
 * drops them: wummel/linkchecker#419, lychee#715), and forgotten when the request ends: no
 * request carries a cookie of another. A `Location` is read as a browser reads it ({@link redirectTarget}).
 */
export class HttpClient {
  private readonly proxy: ProxyServer | null;

  /** @throws TypeError when `opts.proxy` is not a proxy server URL */
  constructor(private readonly opts: HttpClientOptions) {
    this.proxy = opts.proxy ? parseProxy(opts.proxy) : null;
  }

  /**
   * Request `url` (absolute `http:` or `https:`). Any HTTP status is an answer.
   * @throws HttpRequestError when no usable answer came within `timeoutMs`
   */
  async request(url: string, opts: HttpRequestOptions): Promise<HttpResponse> {
    const deadline = Date.now() + opts.timeoutMs;
    let method = opts.method ?? 'GET';
    let current = new URL(url);
    const maxRedirects = opts.maxRedirects ?? 0;
    if (current.protocol !== 'http:' && current.protocol !== 'https:') throw new HttpRequestError('network', `not an http(s) URL: ${current.href}`);
    // This request's own cookie jar (see the class comment).
    const cookies = new CookieJar();
    for (let hop = 0; ; hop++) {
      const { res, setCookie } = await this.once(current, method, deadline, opts.timeoutMs, opts.maxBodyBytes ?? 0, opts.accept ?? '*/*', cookies.getCookieStringSync(current.href) || null);
      const location = res.headers.location;
      if (!REDIRECTS.has(res.status) || location === undefined || maxRedirects === 0) return res;
      if (hop >= maxRedirects) throw new HttpRequestError('redirect', `more than ${maxRedirects} redirects`, res.status);
      // A cookie the URL may not set (another domain's, a malformed line) is ignored, as a browser ignores it.
      for (const line of setCookie) cookies.setCookieSync(line, current.href, { ignoreError: true });
      try {
        current = redirectTarget(location, current);
      } catch {
        throw new HttpRequestError('redirect', `invalid redirect location: ${location}`, res.status);
      }
      if (current.protocol !== 'http:' && current.protocol !== 'https:') throw new HttpRequestError('redirect', `redirect to a URL that is not http(s): ${current.href}`, res.status);
      if (res.status === 303) method = method === 'HEAD' ? 'HEAD' : 'GET';
    }
  }

  /**
   * One request and its response (no redirects followed), with the response's `Set-Cookie` lines.
   * @param cookie - cookies the redirect chain set for this URL, sent after any `--header Cookie`
   */
  private async once(
    url: URL,
    method: 'GET' | 'HEAD',
    deadline: number,
    timeoutMs: number,
    maxBodyBytes: number,
    accept: string,
    cookie: string | null,
  ): Promise<{ res: HttpResponse; setCookie: string[] }> {
    const left = deadline - Date.now();
    if (left <= 0) throw timeout(timeoutMs);
    let conn;
    try {
      conn = await connectToOrigin(url, this.proxy, { ignoreHttpsErrors: this.opts.ignoreHttpsErrors ?? false }, left);
    } catch (err) {
      if (err instanceof ConnectError && /^no connection within/.test(err.message)) throw timeout(timeoutMs);
      throw new HttpRequestError('network', err instanceof Error ? err.message : String(err));
    }
    const target = new URL(url.href);
    target.hash = '';
    const auth = conn.absoluteForm && this.proxy ? proxyAuthorization(this.proxy) : null;
    const headers: Record<string, string> = {
      host: url.host,
      'user-agent': this.opts.userAgent,
      accept,
      'accept-encoding': 'gzip, deflate, br',
      connection: 'close',
      ...lowercased(this.opts.headersFor?.(url.href) ?? {}),
      ...(auth ? { 'proxy-authorization': auth } : {}),
    };
    if (cookie !== null) headers.cookie = headers.cookie ? `${headers.cookie}; ${cookie}` : cookie;
    const socket = conn.socket;
    return await new Promise<{ res: HttpResponse; setCookie: string[] }>((resolve, reject) => {
      let settled = false;
      let setCookie: string[] = [];
      const finish = (err: HttpRequestError | null, res?: HttpResponse): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        if (err) reject(err);
        else resolve({ res: res!, setCookie });
      };
      /** The response's status once its head has arrived. */
      let answered: number | null = null;
      const timer = setTimeout(() => finish(timeout(timeoutMs, answered)), Math.max(1, deadline - Date.now()));
      const req = http.request({
        method,
        path: conn.absoluteForm ? target.href : `${target.pathname}${target.search}`,
        headers,
        createConnection: () => socket as net.Socket,
      });
      req.once('error', (err) => finish(new HttpRequestError('network', err.message)));
      req.once('response', (res) => {
        const status = res.statusCode ?? 0;
        answered = status;
        setCookie = res.headers['set-cookie'] ?? [];
        const responseHeaders: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) responseHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
        const done = (body: Buffer, truncated: boolean): void => finish(null, { status, url: url.href, headers: responseHeaders, body, truncated });
        if (method === 'HEAD' || maxBodyBytes <= 0) {
          res.resume();
          done(Buffer.alloc(0), false);
          return;
        }
        readBody(res, responseHeaders['content-encoding'], maxBodyBytes).then(
          ({ body, truncated }) => done(body, truncated),
          (err: unknown) => finish(new HttpRequestError('network', `reading the body: ${err instanceof Error ? err.message : String(err)}`, status)),
        );
      });
      req.end();
    });
  }
}

/**
 * The URL a `Location` header names, resolved against the URL that answered. Node reads header
 * bytes as Latin-1, one character per byte, but servers send raw UTF-8 there (`Location: /café`,
 * scrapy#2321, Norconex/crawler#199), and browsers read those bytes as UTF-8: Chromium requests
 * `/caf%C3%A9`, where the Latin-1 reading would request `/caf%C3%83%C2%A9`, a page that does not
 * exist. So a value whose bytes are UTF-8 is decoded as such; other bytes above 0x7F are
 * percent-escaped one by one (`%E9`), as Chromium sends them.
 * @throws TypeError when the value is no URL
 */
export function redirectTarget(location: string, base: URL): URL {
  // Already characters (not one per byte), or plain ASCII: nothing to decode.
  if (!/[\x80-\xff]/.test(location) || /[^\x00-\xff]/.test(location)) return new URL(location, base);
  const bytes = Buffer.from(location, 'latin1');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = location.replace(/[\x80-\xff]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  }
  return new URL(text, base);
}

function timeout(timeoutMs: number, status: number | null = null): HttpRequestError {
  return new HttpRequestError('timeout', `no answer within ${timeoutMs} ms`, status);
}

function lowercased(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = v;
  return out;
}

/** Read a response body, decoded per `Content-Encoding`, up to `max` bytes (then stop reading). */
function readBody(res: http.IncomingMessage, encoding: string | undefined, max: number): Promise<{ body: Buffer; truncated: boolean }> {
  const enc = (encoding ?? '').trim().toLowerCase();
  let stream: Readable = res;
  if (enc === 'gzip' || enc === 'x-gzip') stream = res.pipe(zlib.createGunzip());
  else if (enc === 'deflate') stream = res.pipe(zlib.createInflate());
  else if (enc === 'br') stream = res.pipe(zlib.createBrotliDecompress());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    stream.on('data', (c: Buffer) => {
      if (over) return;
      chunks.push(c);
      size += c.length;
      if (size > max) {
        over = true;
        stream.destroy();
        res.destroy();
        resolve({ body: Buffer.concat(chunks).subarray(0, max), truncated: true });
      }
    });
    stream.once('end', () => resolve({ body: Buffer.concat(chunks), truncated: false }));
    stream.once('error', (err) => {
      if (!over) reject(err);
    });
    res.once('error', (err) => {
      if (!over) reject(err);
    });
    res.once('close', () => {
      if (!over && !res.complete) reject(new Error('the connection closed before the body ended'));
    });
  });
}
