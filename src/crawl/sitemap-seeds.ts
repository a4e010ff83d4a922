import type { HttpClient } from '../net/http-client.js';
import type { RobotsCache } from '../url/robots.js';
import { readSitemaps } from '../url/sitemap.js';
import type { Candidate, LinkPipeline } from './link-pipeline.js';

/**
 * `--sitemap`: each seed origin's robots.txt `Sitemap:` lines (or `/sitemap.xml` when there are
 * none, or with `--ignore-robots`) seed the frontier at depth 1, without a referrer. A sitemap
 * file robots.txt disallows is not requested (RFC 9309 §2.2.2 governs every URL we fetch); each URL
 * goes through the link pipeline like a link (scope, depth, traps, robots.txt). Problems with a
 * sitemap file and a count per origin are told to `notice`.
 * @param http - the crawl's client for requests outside the browser
 * @param robots - the crawl's robots.txt cache, or `null` with `--ignore-robots`
 * @param seeds - the crawl's seeds
 * @param pipeline - the crawl's link pipeline
 * @param notice - where progress notes go
 * @param added - gets the canonical URLs the sitemaps added to the frontier (not already known,
 *   e.g. as seeds), origin by origin as they are added
 */
export async function seedFromSitemaps(
  http: HttpClient,
  robots: RobotsCache | null,
  seeds: readonly Candidate[],
  pipeline: LinkPipeline,
  notice: (message: string) => void,
  added: Set<string>,
): Promise<void> {
  const origins = [...new Set(seeds.map((s) => new URL(s.requestedUrl).origin))];
  for (const origin of origins) {
    const listed = robots ? (await robots.outcome(origin)).sitemaps : [];
    const start = listed.length ? listed : [`${origin}/sitemap.xml`];
    // Every sitemap file, the guessed /sitemap.xml as the listed ones and an index's children,
    // is a request like any other: robots.txt decides it (Google reports such a sitemap as
    // "blocked by robots.txt"), and an unusable robots.txt (5xx, no answer) refuses them all.
    const found = await readSitemaps(http, start, robots ? { mayFetch: (url) => robots.isAllowed(url) } : {});
    for (const p of found.problems) notice(`sitemap ${p}`);
    const links = pipeline.classify(found.urls.map((href) => ({ href, text: '', source: 'sitemap' as const, rel: '' })));
    const fresh = await pipeline.offer(links.candidates, 1, null);
    for (const e of fresh) added.add(e.url);
    notice(`sitemap: ${found.urls.length} URLs in ${found.files.length} file(s), ${fresh.length} new in scope`);
  }
}
