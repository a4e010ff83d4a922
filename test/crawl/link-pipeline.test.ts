// The link pipeline without a browser: links as a page reports them → classify (resolve,
// normalize, scope) → admit (depth, traps, duplicates, robots.txt over a real local server) →
// the memory frontier, with a record for every URL decided without a visit.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import type { FoundLink } from '../../src/browser/visit.js';
import { DustLearner } from '../../src/crawl/dust.js';
import { LinkPipeline, skipRecord, type AdmissionParts, type AdmissionRules, type Candidate } from '../../src/crawl/link-pipeline.js';
import { MemoryFrontier } from '../../src/store/memory.js';
import { TrapDetector } from '../../src/crawl/traps.js';
import { blankRecord, type PageRecord } from '../../src/model/record.js';
import { HttpClient } from '../../src/net/http-client.js';
import { RobotsCache } from '../../src/url/robots.js';
import { Scope } from '../../src/url/scope.js';

let site: FixtureServer;
let broken: FixtureServer;
const http = new HttpClient({ userAgent: 'spacrawl-test' });

beforeAll(async () => {
  site = await startFixtureServer((_req, url) => {
    if (url.pathname === '/robots.txt') return { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private\n' };
    return { body: html('Page', '') };
  });
  broken = await startFixtureServer((_req, url) => (url.pathname === '/robots.txt' ? { status: 503, body: 'down' } : { body: html('Page', '') }));
});
afterAll(async () => {
  await site.close();
  await broken.close();
});

/** A pipeline over a fresh memory frontier, with what it emitted and admitted. */
function pipeline(o: { seeds?: string[]; rules?: Partial<AdmissionRules>; robots?: boolean; dust?: DustLearner; maxQueryVariants?: number } = {}) {
  const seeds = o.seeds ?? [`${site.origin}/`];
  const frontier = new MemoryFrontier();
  const emitted: PageRecord[] = [];
  const admitted: string[] = [];
  const parts: AdmissionParts = {
    scope: new Scope(seeds),
    traps: new TrapDetector({ maxQueryVariants: o.maxQueryVariants ?? 100, maxPathSegments: 30 }),
    robots: o.robots === false ? null : new RobotsCache({ request: http }),
    dust: o.dust ?? null,
    frontier,
    emit: (r) => emitted.push(r),
    onAdmitted: (u) => admitted.push(u),
  };
  const p = new LinkPipeline({ maxDepth: Infinity, normalize: {}, followNofollow: false, ...o.rules }, parts);
  return { p, frontier, emitted, admitted };
}

const link = (href: string, rel = '', text = ''): FoundLink => ({ href, text, source: 'anchor', rel });
const cand = (url: string): Candidate => ({ url, requestedUrl: url });

describe('classify: resolve → normalize → scope', () => {
  it('sorts one page’s links into in-scope candidates, off-site links and details, each canonical URL once', () => {
    const { p } = pipeline({ robots: false });
    const o = site.origin;
    const c = p.classify([
      link(`${o}/a?utm_source=x`, '', 'A'),
      link(`${o}/a`, '', 'A again'),
      link(`${o}/b#top`),
      link(`${o}/nf`, 'nofollow'),
      link('https://elsewhere.test/x'),
      link('mailto:someone@example.test'),
      link('not a url'),
    ]);
    expect(c.links).toEqual([`${o}/a`, `${o}/b`, `${o}/nf`]);
    expect(c.candidates.map((x) => x.url)).toEqual([`${o}/a`, `${o}/b`]);
    // What a request for it must ask for: the link as the browser resolved it, plain fragment dropped.
    expect(c.candidates.map((x) => x.requestedUrl)).toEqual([`${o}/a?utm_source=x`, `${o}/b`]);
    expect(c.externalLinks).toEqual(['https://elsewhere.test/x']);
    expect(c.linkDetails.map((d) => [d.url, d.nofollow])).toEqual([
      [`${o}/a`, false],
      [`${o}/a`, false],
      [`${o}/b`, false],
      [`${o}/nf`, true],
      ['https://elsewhere.test/x', false],
      ['mailto:someone@example.test', false],
    ]);
    expect(c.linkSources).toEqual({ anchor: 6 });
  });

  it('offers nofollow links with followNofollow', () => {
    const { p } = pipeline({ robots: false, rules: { followNofollow: true } });
    expect(p.classify([link(`${site.origin}/nf`, 'external nofollow')]).candidates.map((x) => x.url)).toEqual([`${site.origin}/nf`]);
  });
});

describe('admit: depth → traps → duplicates → robots.txt', () => {
  it('decides each candidate in order and tells only the admitted ones', async () => {
    const o = site.origin;
    const { p, admitted } = pipeline({ rules: { maxDepth: 2 } });
    const at2 = await p.admit([cand(`${o}/ok`), cand(`${o}/private/x`), cand(`${o}/a/b/a/b/a/b`)], 2, `${o}/`);
    expect(at2.map((e) => [e.url, e.skip ?? null, e.depth, e.referrer])).toEqual([
      [`${o}/ok`, null, 2, `${o}/`],
      [`${o}/private/x`, 'robots', 2, `${o}/`],
      [`${o}/a/b/a/b/a/b`, 'trap', 2, `${o}/`],
    ]);
    expect(at2[1]!.skipError).toBeUndefined();
    expect(admitted).toEqual([`${o}/ok`]);
  });

  it('a URL past maxDepth is held, before robots.txt is even fetched; the frontier decides it, and decideHeld records it as a budget skip', async () => {
    const o = site.origin;
    site.reset();
    const { p, emitted, admitted } = pipeline({ rules: { maxDepth: 1 } });
    const entries = await p.admit([cand(`${o}/private/deep`), cand(`${o}/deep`)], 2, `${o}/x`);
    expect(entries.map((e) => [e.skip, e.held])).toEqual([
      [undefined, true],
      [undefined, true],
    ]);
    expect(site.count('/robots.txt')).toBe(0);
    expect(admitted).toEqual([]);
    expect(await p.offer([cand(`${o}/deep`)], 2, `${o}/x`)).toEqual([{ url: `${o}/deep`, requestedUrl: `${o}/deep`, depth: 2, referrer: `${o}/x`, held: true }]);
    expect(emitted).toEqual([]);
    // Nothing is queued or leased that could report it nearer: decided now.
    expect(await p.decideHeld()).toBe(1);
    expect(emitted.map((r) => [new URL(r.url).pathname, r.skipped, r.depth, r.referrer, r.status])).toEqual([['/deep', 'budget', 2, `${o}/x`, null]]);
    expect(await p.decideHeld()).toBe(0);
  });

  it('a held URL reported again within maxDepth is admitted again (the frontier queues it); deeper or as deep, it is not', async () => {
    const o = site.origin;
    const { p, frontier, emitted, admitted } = pipeline({ robots: false, rules: { maxDepth: 1 } });
    await p.offer([cand(`${o}/`)], 0, null);
    const seed = (await frontier.next())!;
    // Reported at depth 2 by a page visited while the seed is still in flight: held.
    await p.offer([cand(`${o}/b`)], 2, `${o}/a`);
    expect(await p.decideHeld()).toBe(0);
    expect(await p.admit([cand(`${o}/b`)], 2, `${o}/c`)).toEqual([]);
    // The seed reports it at depth 1: the frontier takes it, queued.
    const nearer = await p.offer([cand(`${o}/b`)], 1, `${o}/`);
    expect(nearer).toEqual([{ url: `${o}/b`, requestedUrl: `${o}/b`, depth: 1, referrer: `${o}/` }]);
    expect(admitted).toEqual([`${o}/`, `${o}/b`]);
    expect(await p.admit([cand(`${o}/b`)], 1, `${o}/`)).toEqual([]);
    await frontier.complete(seed, blankRecord(seed.entry.url, seed.entry.url, 0, null), []);
    expect(await p.decideHeld()).toBe(0);
    expect((await frontier.next())!.entry).toEqual(nearer[0]);
    expect(emitted).toEqual([]);
  });

  it('an unreachable robots.txt disallows the origin with a robots-unavailable error (RFC 9309 §2.3.1.4)', async () => {
    const { p } = pipeline({ seeds: [`${broken.origin}/`] });
    const [e] = await p.admit([cand(`${broken.origin}/`)], 0, null);
    expect(e!.skip).toBe('robots');
    expect(e!.skipError?.code).toBe('robots-unavailable');
    expect(e!.skipError?.message).toContain('HTTP 503');
  });

  it('a host that gives no answer at all, not even to robots.txt, makes its URLs unreachable (a network error), not robots skips', async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const { p } = pipeline({ seeds: [`${origin}/`] });
    const [e] = await p.admit([cand(`${origin}/`)], 0, null);
    expect([e!.skip, e!.skipError]).toEqual(['unreachable', { code: 'network', message: `the host could not be reached, not even for robots.txt (connect ECONNREFUSED 127.0.0.1:${port}): nothing was requested` }]);
    const r = skipRecord(e!);
    // Its record is a network failure with nothing requested, not a skip: skipped null, attempts 0.
    expect([r.skipped, r.error?.code, r.status, r.attempts]).toEqual([null, 'network', null, 0]);
  });

  it('a variant differing only in a learned parameter is a duplicate of the first one known', async () => {
    const o = site.origin;
    const dust = new DustLearner();
    for (const v of ['1', '2', '3']) dust.observe(`${o}/p?x=${v}`, 'same content');
    const { p, admitted } = pipeline({ dust, robots: false });
    const entries = await p.admit([cand(`${o}/p?x=4`), cand(`${o}/q?x=1`)], 1, `${o}/`);
    expect(entries.map((e) => [e.skip ?? null, e.duplicateOf ?? null])).toEqual([
      ['duplicate', `${o}/p?x=3`],
      [null, null],
    ]);
    expect(admitted).toEqual([`${o}/q?x=1`]);
  });

  it('more query variants of one path than maxQueryVariants are traps', async () => {
    const o = site.origin;
    const { p } = pipeline({ robots: false, maxQueryVariants: 2 });
    const entries = await p.admit(['a', 'b', 'c', 'a'].map((m) => cand(`${o}/cal?m=${m}`)), 1, `${o}/`);
    expect(entries.map((e) => e.skip ?? null)).toEqual([null, null, 'trap', null]);
  });
});

describe('offer: → frontier, with a record per new skipped URL', () => {
  it('adds each canonical URL once, records new skips once, and queues the rest breadth-first', async () => {
    const o = site.origin;
    site.reset();
    const { p, frontier, emitted } = pipeline({ rules: { maxDepth: 1 } });
    const fresh = await p.offer([cand(`${o}/`), cand(`${o}/private`)], 0, null);
    expect(fresh.map((e) => e.url)).toEqual([`${o}/`, `${o}/private`]);
    expect(emitted.map((r) => [r.url, r.skipped, r.depth, r.referrer])).toEqual([[`${o}/private`, 'robots', 0, null]]);
    // Offered again: nothing new, no second record.
    expect(await p.offer([cand(`${o}/`), cand(`${o}/private`)], 0, null)).toEqual([]);
    expect(emitted).toHaveLength(1);
    expect(site.count('/robots.txt')).toBe(1);
    const lease = await frontier.next();
    expect(lease?.entry.url).toBe(`${o}/`);
    expect(await frontier.next()).toBeNull();
    expect(await frontier.counts()).toEqual({ queued: 0, inFlight: 1, done: 1 });
  });

  it('a URL the frontier has taken is not decided again; one whose add failed is', async () => {
    const o = site.origin;
    const { p, frontier, admitted } = pipeline({ robots: false });
    await p.offer([cand(`${o}/a`), cand(`${o}/b`)], 1, `${o}/`);
    expect(admitted).toEqual([`${o}/a`, `${o}/b`]);
    // Found again on the next page (a site's navigation): not asked of the rules, not offered.
    expect((await p.admit([cand(`${o}/a`), cand(`${o}/c`), cand(`${o}/b`)], 2, `${o}/a`)).map((e) => e.url)).toEqual([`${o}/c`]);
    expect(admitted).toEqual([`${o}/a`, `${o}/b`, `${o}/c`]);
    // Admitted but never taken by the frontier (its add failed): decided again when it comes back.
    expect((await p.admit([cand(`${o}/c`)], 2, `${o}/b`)).map((e) => e.url)).toEqual([`${o}/c`]);
    const failing = pipeline({ robots: false });
    failing.frontier.add = () => Promise.reject(new Error('store down'));
    await expect(failing.p.offer([cand(`${o}/d`)], 1, `${o}/`)).rejects.toThrow('store down');
    expect((await failing.p.admit([cand(`${o}/d`)], 1, `${o}/`)).map((e) => e.url)).toEqual([`${o}/d`]);
    // Told by the page's completion (`remember`): the same.
    p.remember([{ url: `${o}/c`, requestedUrl: `${o}/c`, depth: 2, referrer: `${o}/b` }]);
    expect(await p.admit([cand(`${o}/c`)], 2, `${o}/b`)).toEqual([]);
    expect((await frontier.counts()).queued).toBe(2);
  });

  it('skipRecord: the entry’s own reason, error and duplicate, everything else blank', () => {
    const e = { url: 'http://a.test/x', requestedUrl: 'http://a.test/x?utm_source=y', depth: 3, referrer: 'http://a.test/' };
    const budget = skipRecord(e, 'budget');
    expect([budget.skipped, budget.error, budget.duplicateOf, budget.requestedUrl, budget.depth, budget.status, budget.attempts]).toEqual([
      'budget',
      null,
      null,
      'http://a.test/x?utm_source=y',
      3,
      null,
      0,
    ]);
    const robots = skipRecord({ ...e, skip: 'robots', skipError: { code: 'robots-unavailable', message: 'm' } });
    expect([robots.skipped, robots.error]).toEqual(['robots', { code: 'robots-unavailable', message: 'm' }]);
  });
});

/** A port nothing listens on (bound, then closed again). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}
