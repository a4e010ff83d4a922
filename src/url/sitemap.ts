import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import type { HttpClient } from '../net/http-client.js';

/** Limits and gate for {@link readSitemaps}. */
export interface SitemapOptions {
  /**
   * Whether a sitemap file may be requested (the crawl's robots.txt): a file it refuses is listed
   * in `problems` and never requested. Without it, every file is requested.
   */
  mayFetch?: (url: string) => Promise<boolean>;
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

/** A text sitemap's URLs (sitemaps.org "Text file": one absolute URL per line, nothing else); other lines are skipped. */
function textUrls(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    const t = line.trim();
    if (!/^https?:\/\//i.test(t)) continue;
    try {
      out.push(new URL(t).href);
    } catch {
      // not a URL after all: skipped, as a bad <loc> is
    }
  }
  return out;
}

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
 * Fetch XML sitemaps and sitemap indexes (sitemaps.org protocol 0.9) and text sitemaps (one URL
 * per line, sitemaps.org "Other formats"), plain or gzip-compressed (`.xml.gz`, detected by its
 * magic bytes), following indexes breadth-first, through the crawl's own HTTP client (same
 * User-Agent, proxy and TLS settings). A file is XML when its first character (after a byte
 * order mark and white space) is `<`, else text.
 * Never throws for a bad file, nor for a bad `<loc>` (which is skipped): a file that cannot be
 * used is listed in `problems`.
 * @param request - the crawl's HTTP client
 * @param start - sitemap URLs to begin with (robots.txt `Sitemap:` lines, or `/sitemap.xml`)
 */
export async function readSitemaps(request: HttpClient, start: readonly string[], limits: SitemapOptions = {}): Promise<SitemapResult> {
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
      if (limits.mayFetch && !(await limits.mayFetch(file))) {
        result.problems.push(`${file}: disallowed by robots.txt, not requested`);
        continue;
      }
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
      const text = body.subarray(0, maxBytes).toString('utf8');
      let pages: string[];
      if (/^\uFEFF?\s*</.test(text)) {
        const doc = parser.parse(text) as { urlset?: { url?: unknown }; sitemapindex?: { sitemap?: unknown } };
        for (const loc of locs(doc.sitemapindex?.sitemap)) {
          const abs = absolute(loc, file);
          if (abs !== null) queue.push(abs);
        }
        pages = locs(doc.urlset?.url).flatMap((loc) => absolute(loc, file) ?? []);
        if (!doc.urlset && !doc.sitemapindex) result.problems.push(`${file}: not a sitemap (no <urlset> or <sitemapindex>)`);
      } else {
        pages = textUrls(text);
        if (!pages.length) result.problems.push(`${file}: not a sitemap (neither XML nor one URL per line)`);
      }
      for (const abs of pages) {
        if (seenUrls.has(abs)) continue;
        seenUrls.add(abs);
        result.urls.push(abs);
        if (result.urls.length >= maxUrls) break;
      }
    } catch (err) {
      result.problems.push(`${file}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
    }
  }
  return result;
}

/** `loc` resolved against the sitemap file's URL, or `null` when it is not a URL (one bad `<loc>` costs only itself). */
function absolute(loc: string, file: string): string | null {
  try {
    return new URL(loc, file).href;
  } catch {
    return null;
  }
}
