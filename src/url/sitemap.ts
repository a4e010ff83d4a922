import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import type { HttpClient } from '../net/http-client.js';

/** Limits for {@link readSitemaps}. */
export interface SitemapLimits {
  /** Most page URLs collected. @default 50000 (the sitemaps.org limit of one file) */
  maxUrls?: number;
  /** Most sitemap files fetched, indexes included. @default 100 */
  maxFiles?: number;
  /** Per-file fetch timeout (ms). @default 15000 */
  timeoutMs?: number;
  /** Largest file read, after decompression (bytes). @default 50 MiB (sitemaps.org) */
  maxBytes?: number;
}

/** What {@link readSitemaps} found. */
export interface SitemapResult {
  /** Page URLs (`<urlset><url><loc>`), absolute, in file order, deduplicated. */
  urls: string[];
  /** Sitemap files fetched (indexes included). */
  files: string[];
  /** One line per file that could not be used. */
  problems: string[];
}

const parser = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, trimValues: true, isArray: (name) => name === 'url' || name === 'sitemap' });

function locs(items: unknown): string[] {
  if (!Array.isArray(items)) return [];
  const out: string[] = [];
  for (const it of items) {
    const loc = (it as { loc?: unknown } | null)?.loc;
    if (typeof loc === 'string' && loc) out.push(loc);
  }
  return out;
}

/**
 * Fetch XML sitemaps and sitemap indexes (sitemaps.org protocol 0.9), plain or gzip-compressed
 * (`.xml.gz`, detected by its magic bytes), following indexes breadth-first, through the
 * crawl's own HTTP client (same User-Agent, proxy and TLS settings).
 * Never throws for a bad file: it is listed in `problems`.
 * @param request - the crawl's HTTP client
 * @param start - sitemap URLs to begin with (robots.txt `Sitemap:` lines, or `/sitemap.xml`)
 */
export async function readSitemaps(request: HttpClient, start: readonly string[], limits: SitemapLimits = {}): Promise<SitemapResult> {
  const maxUrls = limits.maxUrls ?? 50_000;
  const maxFiles = limits.maxFiles ?? 100;
  const maxBytes = limits.maxBytes ?? 50 * 1024 * 1024;
  const result: SitemapResult = { urls: [], files: [], problems: [] };
  const seenUrls = new Set<string>();
  const queue = [...start];
  const seenFiles = new Set<string>();
  while (queue.length && result.files.length < maxFiles && result.urls.length < maxUrls) {
    const file = queue.shift()!;
    if (seenFiles.has(file)) continue;
    seenFiles.add(file);
    let body: Buffer;
    try {
      const resp = await request.request(file, { timeoutMs: limits.timeoutMs ?? 15_000, maxRedirects: 5, maxBodyBytes: maxBytes });
      if (resp.status >= 400) {
        result.problems.push(`${file}: HTTP ${resp.status}`);
        continue;
      }
      body = resp.body;
    } catch (err) {
      result.problems.push(`${file}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
      continue;
    }
    result.files.push(file);
    try {
      if (body[0] === 0x1f && body[1] === 0x8b) body = gunzipSync(body, { maxOutputLength: maxBytes });
      const doc = parser.parse(body.subarray(0, maxBytes).toString('utf8')) as { urlset?: { url?: unknown }; sitemapindex?: { sitemap?: unknown } };
      for (const loc of locs(doc.sitemapindex?.sitemap)) queue.push(new URL(loc, file).href);
      for (const loc of locs(doc.urlset?.url)) {
        let abs: string;
        try {
          abs = new URL(loc, file).href;
        } catch {
          continue;
        }
        if (seenUrls.has(abs)) continue;
        seenUrls.add(abs);
        result.urls.push(abs);
        if (result.urls.length >= maxUrls) break;
      }
      if (!doc.urlset && !doc.sitemapindex) result.problems.push(`${file}: not a sitemap (no <urlset> or <sitemapindex>)`);
    } catch (err) {
      result.problems.push(`${file}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
    }
  }
  return result;
}
