/**
 * The HTTP server `spacrawl demo` serves the demo site with, and the tests their fixture sites
 * (`fixtures/server.ts` re-exports it): a real server on 127.0.0.1 that answers by a handler and
 * logs and counts every request.
 * @module
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Soft-404 probes carry this in their path; `documents()` and the in-flight peak leave them out. */
const PROBE = /spacrawl-probe/;

/** One request as the fixture server saw it. */
export interface LoggedRequest {
  method: string;
  /** Raw request target (path and query), as sent. */
  target: string;
  /** Path without query. */
  path: string;
  /** `Sec-Fetch-Dest` header: `document` for a page navigation. */
  dest: string | null;
  /** Time the request arrived (ms since epoch). */
  at: number;
  userAgent: string | null;
}

/** What a route answers. */
export interface FixtureResponse {
  status?: number;
  /** Response headers; `null` removes a default one (`content-type`, `cache-control`); an array value is sent as several header lines of that name. */
  headers?: Record<string, string | string[] | null>;
  body?: string | Buffer;
  /** Wait this long before answering (ms). */
  delayMs?: number;
  /** Send the headers and the first half of the body, then the rest after this long (ms). */
  bodyDelayMs?: number;
  /** Never answer (a hanging long poll); the socket is destroyed when the server closes. */
  hang?: boolean;
}

/** A route handler: gets the request and its parsed URL, returns the response. */
export type FixtureHandler = (req: http.IncomingMessage, url: URL, server: FixtureServer) => FixtureResponse | Promise<FixtureResponse>;

/** A real HTTP server on 127.0.0.1 that logs and counts every request, for tests and the demo. */
export interface FixtureServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Every request, in arrival order. */
  log: LoggedRequest[];
  /** Requests whose raw target (path + query) is `target`. */
  count(target: string): number;
  /** Page navigations (Sec-Fetch-Dest: document), in arrival order. */
  documents(): LoggedRequest[];
  /** Highest number of document requests in flight at once. */
  peakDocumentsInFlight(): number;
  /**
   * Connections open now. Once a client's process is gone and this is 0, every request it sent
   * that reached the server is in {@link FixtureServer.log}.
   */
  openConnections(): number;
  /** Forget the log and the peak. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Start a fixture server on 127.0.0.1 (a free port unless `port` is given).
 * @param handler - answers every request
 * @param port - port to listen on; 0 = any free port
 * @throws the listen error when `port` cannot be bound (`EADDRINUSE` …)
 */
export async function startFixtureServer(handler: FixtureHandler, port = 0): Promise<FixtureServer> {
  const log: LoggedRequest[] = [];
  let docsInFlight = 0;
  let peak = 0;
  const sockets = new Set<import('node:net').Socket>();
  const srv = http.createServer();
  const api: FixtureServer = {
    origin: '',
    port: 0,
    log,
    count: (target) => log.filter((r) => r.target === target).length,
    documents: () => log.filter((r) => r.dest === 'document' && !PROBE.test(r.target)),
    peakDocumentsInFlight: () => peak,
    openConnections: () => sockets.size,
    reset: () => {
      log.length = 0;
      peak = docsInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        srv.close(() => resolve());
      }),
  };
  srv.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  srv.on('request', (req, res) => {
    const target = req.url ?? '/';
    const url = new URL(target, 'http://127.0.0.1');
    const dest = (req.headers['sec-fetch-dest'] as string | undefined) ?? null;
    log.push({ method: req.method ?? 'GET', target, path: url.pathname, dest, at: Date.now(), userAgent: req.headers['user-agent'] ?? null });
    const isDoc = dest === 'document' && !PROBE.test(target);
    if (isDoc) {
      docsInFlight++;
      peak = Math.max(peak, docsInFlight);
    }
    let counted = isDoc;
    const done = (): void => {
      if (counted) {
        counted = false;
        docsInFlight--;
      }
    };
    res.on('close', done);
    Promise.resolve()
      .then(() => handler(req, url, api))
      .then(async (r) => {
        if (r.hang) return;
        if (r.delayMs) await new Promise((ok) => setTimeout(ok, r.delayMs));
        if (res.destroyed) return;
        const headers: Record<string, string | string[] | null> = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...r.headers };
        for (const [name, value] of Object.entries(headers)) if (value === null) delete headers[name];
        res.writeHead(r.status ?? 200, headers as Record<string, string>);
        const body = Buffer.from(req.method === 'HEAD' ? '' : (r.body ?? ''));
        if (r.bodyDelayMs && body.length > 1) {
          res.write(body.subarray(0, body.length >> 1));
          await new Promise((ok) => setTimeout(ok, r.bodyDelayMs));
          if (res.destroyed) return;
          res.end(body.subarray(body.length >> 1));
          return;
        }
        res.end(body);
      })
      .catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
  });
  // A port in use (a fixed `port`) rejects with the listen error (EADDRINUSE) instead of crashing the process.
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      srv.off('error', reject);
      resolve();
    });
  });
  const addr = srv.address() as AddressInfo;
  api.port = addr.port;
  api.origin = `http://127.0.0.1:${addr.port}`;
  return api;
}

/** A minimal HTML page. */
export function html(title: string, body: string, head = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;
}
