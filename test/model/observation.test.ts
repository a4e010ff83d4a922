/**
 * What a visit observes is declared once (PageObservation) and the record reuses it: no
 * browser, no process.
 */
import { describe, expect, it } from 'vitest';
import { blankVisitResult, type VisitResult } from '../../src/browser/visit/types.js';
import { recordFromVisit } from '../../src/crawl/record-builder.js';
import { blankObservation, blankRecord, OBSERVATION_FIELDS, observationOf } from '../../src/model/record.js';

const ENTRY = { url: 'https://example.test/a', requestedUrl: 'https://example.test/a', depth: 2, referrer: 'https://example.test/' };

/** A visit that saw something in every observed field, and in the visit's own fields. */
function fullVisit(): VisitResult {
  return {
    ...blankVisitResult(),
    finalUrl: 'https://example.test/b',
    redirectChain: [{ url: 'https://example.test/a', status: 301, kind: 'http' }],
    status: 200,
    contentType: 'text/html',
    title: 'B',
    frames: ['https://other.test/frame'],
    settled: true,
    timings: { ttfb: 1, domContentLoaded: 2, load: 3, settledMs: 4, lastChangeMs: 3, serverWaitMs: 5, total: 6 },
    consoleErrors: ['boom'],
    pageErrors: ['TypeError: x'],
    failedRequests: [{ url: 'https://example.test/missing', status: 404, failure: null, resourceType: 'fetch' }],
    dialogs: [{ type: 'alert', message: 'hi' }],
    downloads: ['https://example.test/file.zip'],
    meta: { description: 'd', canonical: 'https://example.test/b', h1Count: 1 },
    mixedContent: ['http://example.test/img.png'],
    blockedBy: null,
    error: null,
    anchors: ['top'],
    links: [{ href: 'https://example.test/c', text: 'C', source: 'anchor', rel: '' }],
    robotsHeaders: ['spacrawl: noindex'],
    robotsMeta: [{ name: 'robots', content: 'nofollow' }],
    text: 'b',
    h1: 'B',
    headings: ['B'],
    screenshot: true,
  };
}

describe('PageObservation', () => {
  it('lists the observed fields once, and the record and the visit result start from the same defaults', () => {
    expect(OBSERVATION_FIELDS).toEqual([
      'finalUrl',
      'redirectChain',
      'status',
      'contentType',
      'title',
      'frames',
      'settled',
      'timings',
      'consoleErrors',
      'pageErrors',
      'failedRequests',
      'dialogs',
      'downloads',
      'meta',
      'mixedContent',
      'blockedBy',
      'error',
      'anchors',
      'a11y',
      'vitals',
      'spa',
      'serverHtml',
      'clickDiscovery',
    ]);
    expect(observationOf(blankRecord('https://example.test/', null, 0, null))).toEqual(blankObservation());
    expect(observationOf(blankVisitResult())).toEqual(blankObservation());
    // Fresh arrays each time: one record's list is never another's.
    expect(blankObservation().consoleErrors).not.toBe(blankObservation().consoleErrors);
    expect(blankObservation().spa.hydration).not.toBe(blankObservation().spa.hydration);
  });

  it('observationOf takes exactly the observed fields', () => {
    const visit = fullVisit();
    const seen = observationOf(visit);
    expect(Object.keys(seen)).toEqual([...OBSERVATION_FIELDS]);
    expect(seen.redirectChain).toBe(visit.redirectChain);
  });
});

describe('recordFromVisit', () => {
  it('carries the observed fields as they are and computes the rest; no visit-only field leaks into the record', () => {
    const visit = fullVisit();
    const r = recordFromVisit(ENTRY, visit, 3, 'b.png');
    expect(Object.keys(r).sort()).toEqual(Object.keys(blankRecord(ENTRY.url, null, 0, null)).sort());
    expect(r).toEqual({
      ...blankRecord(ENTRY.url, ENTRY.requestedUrl, 2, ENTRY.referrer),
      ...observationOf(visit),
      attempts: 3,
      screenshot: 'b.png',
      noindex: true,
      nofollow: true,
    });
    expect(r.links).toEqual([]);
  });

  it('a non-HTML answer has no title and is skipped as non-html, unless it is an error status', () => {
    const visit = { ...fullVisit(), nonHtml: true, status: 200, title: 'ignored', screenshot: false };
    const r = recordFromVisit(ENTRY, visit, 1, 'b.png');
    expect({ title: r.title, skipped: r.skipped, screenshot: r.screenshot }).toEqual({ title: null, skipped: 'non-html', screenshot: null });
    const broken = recordFromVisit(ENTRY, { ...visit, status: 404 }, 1, null);
    expect({ title: broken.title, skipped: broken.skipped }).toEqual({ title: null, skipped: null });
    const unanswered = recordFromVisit(ENTRY, { ...fullVisit(), status: null }, 1, null);
    expect(unanswered.title).toBeNull();
  });
});
