import dns from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';

/** A proxy server, parsed from `--proxy` (see {@link parseProxy}). */
export interface ProxyServer {
  protocol: 'http:' | 'https:' | 'socks4:' | 'socks5:';
  /** Host name or IP address (IPv6 without brackets). */
  host: string;
  port: number;
  /** Credentials from the URL's user-info (`http://user:pass@proxy:3128`), decoded; `null` when absent. */
  username: string | null;
  password: string | null;
}

/** A failure to reach a server through the network or the proxy; `message` says which. */
export class ConnectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectError';
  }
}

const DEFAULT_PROXY_PORT: Record<ProxyServer['protocol'], number> = { 'http:': 80, 'https:': 443, 'socks4:': 1080, 'socks5:': 1080 };

/**
 * Parse a proxy server URL (`http://`, `https://`, `socks4://`, `socks5://`, as `--proxy` accepts).
 * @throws TypeError for another scheme or an unparsable URL
 */
export function parseProxy(proxy: string): ProxyServer {
  const u = new URL(proxy);
  const protocol = u.protocol as ProxyServer['protocol'];
  if (!(protocol in DEFAULT_PROXY_PORT) || !u.hostname) throw new TypeError(`not a proxy server URL: ${proxy}`);
  return {
    protocol,
    host: bare(u.hostname),
    port: u.port ? Number(u.port) : DEFAULT_PROXY_PORT[protocol],
    username: u.username ? decodeURIComponent(u.username) : null,
    password: u.username ? decodeURIComponent(u.password) : null,
  };
}

/** How a request reaches its origin: the socket to write it to, and the request-target form to use. */
export interface OriginConnection {
  socket: Duplex;
  /**
   * `true` when the socket goes to an HTTP proxy that forwards the request itself: the request
   * line then carries the absolute URL (RFC 9112 §3.2.2) and `Proxy-Authorization` if any.
   */
  absoluteForm: boolean;
}

/** TLS settings of a connection. */
export interface TlsSettings {
  /** Accept invalid certificates (`--ignore-https-errors`), also the proxy's own for an `https://` proxy. */
  ignoreHttpsErrors: boolean;
}

/**
 * Open a connection for one request to `url`'s origin, the way Chromium does with the same
 * `--proxy-server`:
 * - no proxy: TCP (and TLS for `https:`) straight to the origin;
 * - an HTTP(S) proxy and an `http:` URL: a connection to the proxy, which gets the request in
 *   absolute form (a plain forward-proxy request, no CONNECT);
 * - an HTTP(S) proxy and an `https:` URL: a `CONNECT host:port` tunnel (RFC 9110 §9.3.6), then TLS
 *   to the origin inside it;
 * - a SOCKS proxy: a SOCKS5 (RFC 1928, user/password per RFC 1929; the host name is resolved by the
 *   proxy) or SOCKS4 (the host resolved here, to IPv4) connection, then TLS for `https:`.
 * @param timeoutMs - cap on connecting (TCP, proxy handshake and TLS together)
 * @throws ConnectError when the origin or the proxy cannot be reached, or the proxy refuses
 */
export async function connectToOrigin(url: URL, proxy: ProxyServer | null, settings: TlsSettings, timeoutMs: number): Promise<OriginConnection> {
  const host = bare(url.hostname);
  const secure = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : secure ? 443 : 80;
  const sockets: Duplex[] = [];
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      for (const s of sockets) s.destroy();
      reject(new ConnectError(`no connection within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  deadline.catch(() => {});
  const keep = <T extends Duplex>(s: T): T => {
    sockets.push(s);
    return s;
  };
  const open = async (): Promise<OriginConnection> => {
    if (!proxy) {
      const raw = keep(await tcp(host, port));
      return { socket: secure ? keep(await startTls(raw, host, settings)) : raw, absoluteForm: false };
    }
    if (proxy.protocol === 'http:' || proxy.protocol === 'https:') {
      let toProxy: Duplex = keep(await tcp(proxy.host, proxy.port, 'proxy'));
      if (proxy.protocol === 'https:') toProxy = keep(await startTls(toProxy, proxy.host, settings));
      if (!secure) return { socket: toProxy, absoluteForm: true };
      const tunnel = keep(await httpConnect(toProxy, `${hostForAuthority(host)}:${port}`, proxy));
      return { socket: keep(await startTls(tunnel, host, settings)), absoluteForm: false };
    }
    const raw = keep(await tcp(proxy.host, proxy.port, 'proxy'));
    const tunnel = proxy.protocol === 'socks5:' ? await socks5(raw, host, port, proxy) : await socks4(raw, host, port, proxy);
    return { socket: secure ? keep(await startTls(tunnel, host, settings)) : tunnel, absoluteForm: false };
  };
  try {
    return await Promise.race([open(), deadline]);
  } catch (err) {
    for (const s of sockets) s.destroy();
    throw err instanceof ConnectError ? err : new ConnectError(err instanceof Error ? err.message : String(err));
  } finally {
    clearTimeout(timer);
  }
}

/** `Proxy-Authorization` value for a proxy with credentials (Basic, RFC 7617), or `null`. */
export function proxyAuthorization(proxy: ProxyServer): string | null {
  if (proxy.username === null) return null;
  return `Basic ${Buffer.from(`${proxy.username}:${proxy.password ?? ''}`).toString('base64')}`;
}

/** `[::1]` → `::1` (URL host names keep IPv6 brackets; sockets want the bare address). */
function bare(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** `::1` → `[::1]` for an authority (`host:port`). */
function hostForAuthority(host: string): string {
  return net.isIPv6(host) ? `[${host}]` : host;
}

/**
 * The address to connect to for `host`: a name under `localhost` (`app.localhost`), or
 * `localhost.` written with its final dot, is the loopback (RFC 6761 §6.3), as Chromium resolves
 * it whatever the system's resolver says (glibc knows only `localhost` itself); any other host as given.
 */
export function connectHost(host: string): string {
  const h = host.toLowerCase();
  return h !== 'localhost' && /(^|\.)localhost\.?$/.test(h) ? '127.0.0.1' : host;
}

function tcp(host: string, port: number, what: 'origin' | 'proxy' = 'origin'): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: connectHost(host), port });
    s.once('connect', () => {
      s.removeAllListeners('error');
      resolve(s);
    });
    s.once('error', (err) => {
      s.destroy();
      reject(new ConnectError(what === 'proxy' ? `proxy ${hostForAuthority(host)}:${port} unreachable: ${err.message}` : err.message));
    });
  });
}

function startTls(socket: Duplex, servername: string, settings: TlsSettings): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const t = tls.connect({
      socket,
      ...(net.isIP(servername) ? {} : { servername }),
      rejectUnauthorized: !settings.ignoreHttpsErrors,
      ALPNProtocols: ['http/1.1'],
    });
    t.once('secureConnect', () => {
      t.removeAllListeners('error');
      resolve(t);
    });
    t.once('error', (err) => {
      t.destroy();
      reject(new ConnectError(tlsFailure(err)));
    });
  });
}

/**
 * One readable line for a failed TLS handshake. OpenSSL's own text
 * (`…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:…/ssl3_record.c:350:`) is
 * cut to its reason; "wrong version number" is what a server answering plain HTTP on the port
 * gives, and says so. Certificate errors (Node's own messages) are kept as they are.
 */
export function tlsFailure(err: Error): string {
  const reason = /SSL routines:[^:]*:([^:]+):/.exec(err.message)?.[1];
  if (!reason) return err.message;
  if (reason === 'wrong version number') return 'TLS handshake failed: the server did not answer in TLS (plain http on this port?)';
  return `TLS handshake failed: ${reason}`;
}

/** Ask an HTTP proxy for a tunnel to `authority` over `socket`; resolves with the tunnel's socket. */
function httpConnect(socket: Duplex, authority: string, proxy: ProxyServer): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const auth = proxyAuthorization(proxy);
    const req = http.request({
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...(auth ? { 'proxy-authorization': auth } : {}) },
      createConnection: () => socket as net.Socket,
    });
    req.once('connect', (res, tunnel, head) => {
      if (res.statusCode !== 200) {
        tunnel.destroy();
        reject(new ConnectError(`the proxy refused CONNECT ${authority} (HTTP ${res.statusCode})`));
        return;
      }
      if (head.length) tunnel.unshift(head);
      resolve(tunnel);
    });
    req.once('error', (err) => reject(new ConnectError(`CONNECT ${authority} through the proxy failed: ${err.message}`)));
    req.end();
  });
}

/**
 * Read exactly `n` bytes from `socket` (the SOCKS handshakes are short, fixed-size exchanges in
 * which the proxy only ever answers what was just sent, so nothing arrives between two reads).
 */
function readBytes(socket: Duplex, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length < n) return;
      cleanup();
      if (buf.length > n) {
        // Bytes past the handshake belong to whoever reads the socket next: keep them for it.
        socket.pause();
        socket.unshift(buf.subarray(n));
      }
      resolve(buf.subarray(0, n));
    };
    const onEnd = (): void => {
      cleanup();
      reject(new ConnectError('the SOCKS proxy closed the connection'));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new ConnectError(`SOCKS proxy: ${err.message}`));
    };
    const cleanup = (): void => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
    };
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onError);
    socket.resume();
  });
}

const SOCKS5_REPLIES: Record<number, string> = {
  1: 'general failure',
  2: 'connection not allowed by ruleset',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

/** SOCKS5 CONNECT (RFC 1928) with the host name sent to the proxy, and user/password auth (RFC 1929) when given. */
async function socks5(socket: Duplex, host: string, port: number, proxy: ProxyServer): Promise<Duplex> {
  const withAuth = proxy.username !== null;
  socket.write(Buffer.from(withAuth ? [5, 2, 0, 2] : [5, 1, 0]));
  const [ver, method] = await readBytes(socket, 2);
  if (ver !== 5 || (method !== 0 && method !== 2)) throw new ConnectError('the SOCKS5 proxy accepts none of our authentication methods');
  if (method === 2) {
    const user = Buffer.from(proxy.username ?? '');
    const pass = Buffer.from(proxy.password ?? '');
    socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
    const [, status] = await readBytes(socket, 2);
    if (status !== 0) throw new ConnectError('the SOCKS5 proxy refused the credentials');
  }
  let address: Buffer;
  if (net.isIPv4(host)) address = Buffer.from([1, ...host.split('.').map(Number)]);
  else if (net.isIPv6(host)) address = Buffer.concat([Buffer.from([4]), ipv6Bytes(host)]);
  else {
    const name = Buffer.from(host);
    address = Buffer.concat([Buffer.from([3, name.length]), name]);
  }
  socket.write(Buffer.concat([Buffer.from([5, 1, 0]), address, Buffer.from([port >> 8, port & 0xff])]));
  const [, rep, , atyp] = await readBytes(socket, 4);
  if (rep !== 0) throw new ConnectError(`the SOCKS5 proxy refused ${hostForAuthority(host)}:${port} (${SOCKS5_REPLIES[rep ?? 1] ?? `reply ${rep}`})`);
  const rest = atyp === 1 ? 4 : atyp === 4 ? 16 : (await readBytes(socket, 1))[0]!;
  await readBytes(socket, rest + 2);
  return socket;
}

/** SOCKS4 CONNECT: SOCKS4 carries an IPv4 address only, so the host is resolved here (as Chromium does). */
async function socks4(socket: Duplex, host: string, port: number, proxy: ProxyServer): Promise<Duplex> {
  const ip = net.isIPv4(host) ? host : (await dns.lookup(host, { family: 4 }).catch(() => null))?.address;
  if (!ip) throw new ConnectError(`${host} has no IPv4 address for the SOCKS4 proxy`);
  const user = Buffer.from(proxy.username ?? '');
  socket.write(Buffer.concat([Buffer.from([4, 1, port >> 8, port & 0xff, ...ip.split('.').map(Number)]), user, Buffer.from([0])]));
  const [, status] = await readBytes(socket, 8);
  if (status !== 0x5a) throw new ConnectError(`the SOCKS4 proxy refused ${host}:${port} (reply ${status})`);
  return socket;
}

function ipv6Bytes(ip: string): Buffer {
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const parts = (s: string | undefined): string[] => (s ? s.split(':') : []);
  const h = parts(head);
  const t = parts(tail);
  const groups = tail === undefined ? h : [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16) || 0, i * 2));
  return out;
}
