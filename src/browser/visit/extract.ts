/**
 * Stage: extract. Reads the settled page: which document it shows (a client-side navigation
 * may have loaded another one, whose status and headers then count), its DOM (title, text,
 * headings, meta tags, robots meta, links in the document and its shadow roots, `window.open`
 * targets), the frames it embeds, its ids and names (`collectAnchors`), and a client-side hop
 * when the page moved itself to another URL during load. The same call into the page reads when
 * its links or title last changed (`timings.lastChangeMs`) and its SPA signals (kept in
 * `ctx.spa` for the inspect stage; see `settled-read.ts`).
 * @module
 */
import type { Response } from 'playwright';
import type { RedirectHop } from '../../model/record.js';
import type { FoundLink } from '../discovery.js';
import { readFrames } from '../frames.js';
import { readAnchors, type ExtractResult, type RawLink } from '../page-scripts.js';
import { declaresClosedRoot, registerClosedRoots } from '../closed-roots.js';
import { DOM_READ, evaluateLibraryJson } from '../page-library.js';
import { CallTimeoutError } from '../timeout.js';
import { hungItself } from '../hang-watch.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';
import { askServerBody } from './server-body.js';
import { parseSettledReading, readSettledPage, scanExcludeOf, type SettledReading } from './settled-read.js';
import { httpChain, inheritFragment, linkHeaderCanonical, refreshTarget, stripFragment } from './urls.js';

/** Most ids and names kept per page (`--check-fragments`). */
export const MAX_ANCHORS = 10_000;

/** The extract stage (one per visit). */
export function extract(): Stage<VisitContext> {
  return {
    name: 'extract',
    async action(ctx) {
      await readLastDocument(ctx);
      // The server's HTML (for the inspect stage), asked for by the settle stage unless the page
      // has shown another document since.
      askServerBody(ctx);
      await readDom(ctx);
    },
  };
}

/** A client-side navigation that loaded another document: that document is the one read (its status, type, robots headers, bot wall). */
async function readLastDocument(ctx: VisitContext): Promise<void> {
  const { result, activity: act } = ctx;
  const lastDoc = act.lastDocument;
  if (!lastDoc || !act.mainResponse || lastDoc === act.mainResponse) return;
  result.status = lastDoc.status();
  const headers = await ctx.step(lastDoc.allHeaders().catch(() => ({}) as Record<string, string>));
  result.contentType = headers['content-type'] ?? null;
  result.robotsHeaders = await ctx.step(lastDoc.headerValues('x-robots-tag').catch(() => [] as string[]));
  result.blockedBy = headers['cf-mitigated'] ? `cf-mitigated: ${headers['cf-mitigated']}` : null;
}

/** The read the settle stage made (see `VisitContext.settledRead`), once; `null` when none or it does not parse. */
function takeSettledRead(ctx: VisitContext): SettledReading | null {
  const made = ctx.settledRead;
  ctx.settledRead = null;
  if (made === null) return null;
  try {
    return parseSettledReading(made.json);
  } catch {
    return null;
  }
}

/** Read the page's DOM, anchors and frames into the result. */
async function readDom(ctx: VisitContext): Promise<void> {
  const { page: p, result, opts } = ctx;
  // Read already in the settle stage's last answer, when it found the page settled; a visit that
  // clicks scans its clickables in the same call (click discovery's first scan).
  const made = takeSettledRead(ctx);
  const { main, lastChange, spa, clickables, longestTask } = made ?? (await ctx.call(() => readSettledPage(ctx.tab.cdp, scanExcludeOf(opts)), 'reading the DOM'));
  // Declarative closed shadow roots are out of the page's reach: found through the protocol, then read again.
  if (declaresClosedRoot(await ctx.step(ctx.serverBody?.body ?? Promise.resolve(null))) && (await ctx.step(registerClosedRoots(ctx.tab.cdp))) > 0) {
    const again = await ctx.callOr(() => evaluateLibraryJson<ExtractResult>(p.mainFrame(), DOM_READ), 'reading closed shadow roots', null);
    if (again) {
      main.links = again.links;
      main.frameSrcs = again.frameSrcs;
    }
  }
  // A sibling's call stopped this page's script, which held the renderer: the page hung (see `hang-watch.ts`).
  if (hungItself(ctx.tab, ctx.stopsAtStart, longestTask)) throw new CallTimeoutError('a script of the page', longestTask ?? 0);
  // A visit the settle stage ended (a stopped client-side navigation) is not read here.
  result.timings.lastChangeMs = lastChange === null ? null : Math.max(0, Math.round(lastChange - ctx.startedAt));
  ctx.spa = spa;
  ctx.clickables = clickables ?? undefined;
  result.noContent = main.empty;
  result.title = main.empty ? null : main.title;
  result.robotsMeta = main.robotsMeta;
  result.finalUrl = main.href;
  result.timings.ttfb = main.nav.ttfb;
  result.timings.domContentLoaded = main.nav.domContentLoaded;
  result.timings.load = main.nav.load;
  result.links.push(...documentLinks(main.links));
  for (const href of main.opened) result.links.push({ href, text: '', source: 'popup', rel: '' });
  // A refresh with a delay longer than the visit sends a person there once it has passed: the
  // document's <meta http-equiv="refresh">, else its HTTP `Refresh` header (the same steps).
  const docHeaders = (ctx.activity.lastDocument ?? ctx.activity.mainResponse)?.headers() ?? {};
  const meta = main.refresh ? refreshTarget(main.refresh.content, main.refresh.base, main.href) : null;
  const header = meta ? undefined : docHeaders['refresh'];
  const refresh = meta ?? (header ? refreshTarget(header, main.href) : null);
  if (refresh) result.links.push({ href: refresh, text: '', source: 'refresh', rel: '' });
  result.text = main.text;
  result.h1 = main.h1;
  result.headings = main.headings;
  // The canonical URL: the document's <link rel="canonical">, else its HTTP `Link` header's.
  const canonical = main.canonical ?? (docHeaders['link'] ? linkHeaderCanonical(docHeaders['link'], main.href) : null);
  result.meta = { description: main.description, canonical, h1Count: main.h1Count };
  if (opts.lookFor?.length) {
    const lookFor = [...opts.lookFor];
    result.selectorsFound = await ctx.callOr(() => p.evaluate(findRendered, lookFor), 'looking for selectors', [] as string[]);
  }
  if (opts.collectAnchors) {
    result.anchors = await ctx.callOr(() => p.evaluate(readAnchors, MAX_ANCHORS), 'reading ids and names', null);
  }
  for (const l of main.frameSrcs) result.links.push(found(l, 'frame-src'));
  const framed = await ctx.step(readFrames(p, main.origin));
  result.links.push(...framed.links);
  result.frames = framed.frames;
  // A client-side navigation during load (location change, pushState) is a client hop.
  // The document's response carries no fragment: the page arrived at the requested one.
  const mainResp = ctx.activity.mainResponse;
  const arrived = mainResp ? inheritFragment(ctx.document.routeUrl ?? mainResp.url(), ctx.requestedUrl) : null;
  if (arrived && stripFragment(main.href) !== stripFragment(arrived)) {
    result.redirectChain.push({ url: arrived, status: null, kind: 'client' });
    result.redirectChain.push(...(await ctx.step(laterHops(arrived, ctx.activity.laterDocuments))));
  }
}

/**
 * The hops of the documents a page loaded after its first one (`first`, left by a client-side
 * navigation), in order: each one's HTTP redirects (`http` hops), and each one the page left
 * again (a `client` hop; a reload of the URL it was at is not a hop). Never rejects.
 */
async function laterHops(first: string, docs: readonly Response[]): Promise<RedirectHop[]> {
  const hops: RedirectHop[] = [];
  let left = stripFragment(first);
  for (const [i, d] of docs.entries()) {
    hops.push(...(await httpChain(d.request())));
    const at = stripFragment(d.url());
    if (i < docs.length - 1 && at !== left) {
      hops.push({ url: d.url(), status: null, kind: 'client' });
      left = at;
    }
  }
  return hops;
}

/** Runs in the page: the selectors that match a rendered element (a size, not `visibility: hidden`); an invalid one matches nothing. */
function findRendered(selectors: string[]): string[] {
  const shown = (e: Element): boolean => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
  };
  return selectors.filter((s) => {
    try {
      return [...document.querySelectorAll(s)].some(shown);
    } catch {
      return false;
    }
  });
}

/** The document's links as `extractPage` read them: `anchor`, or `shadow` inside a shadow root. */
export function documentLinks(links: readonly RawLink[]): FoundLink[] {
  return links.map((l) => found(l, l.inShadow ? 'shadow' : 'anchor'));
}

function found(l: RawLink, source: FoundLink['source']): FoundLink {
  return { href: l.href, text: l.text, source, rel: l.rel };
}
