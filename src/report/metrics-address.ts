/**
 * `--metrics HOST:PORT` read into an address, in a module of its own: the crawl command checks the
 * flag before anything loads the metrics themselves (`metrics.ts`, with `prom-client`).
 * `metrics.ts` re-exports both.
 * @module
 */

/** Where the endpoint listens. */
export interface MetricsAddress {
  host: string;
  port: number;
}

/**
 * Parse `--metrics`: `PORT`, `HOST:PORT` or `[IPv6]:PORT`; without a host, 127.0.0.1 (never
 * every interface unless the address says so, e.g. `0.0.0.0:9464`).
 * @param value - the flag's value, e.g. `9464`, `0.0.0.0:9464` or `[::1]:9464`
 * @returns the address (an IPv6 host without its brackets, the port 0 to 65535), or `null` when
 *   `value` is not one (the caller says how); never throws
 */
export function parseMetricsAddress(value: string): MetricsAddress | null {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(value.trim());
  if (!m) return null;
  const port = Number(m[2]);
  if (port > 65_535) return null;
  const host = m[1] ? m[1].replace(/^\[|\]$/g, '') : '127.0.0.1';
  return { host, port };
}
