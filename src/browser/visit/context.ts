/**
 * The one context every stage of a visit acts on: the tab, the request, the result being
 * filled, what the page does, what the main document answered, and the visit's single abort
 * mechanism (hard deadline, cancellation, crash, too many dialogs all end it the same way).
 * @module
 */
import type { Page, Response } from 'playwright';
import type { RecordError } from '../../model/record.js';
import type { ClickError } from '../../model/observation.js';
import type { ClickCandidate } from '../click-scripts.js';
import type { SpaReading } from '../spa-scripts.js';
import { answerOrStopHang, STOP_AFTER_MS } from '../hang-watch.js';
import type { VisitTab } from '../tab.js';
import { PageActivity } from './activity.js';
import { MainDocument } from './main-document.js';
import { blankVisitResult, VisitAbort, type VisitOptions, type VisitResult } from './types.js';

/** Everything one visit's stages share. */
export interface VisitContext {
  readonly tab: VisitTab;
  /** `tab.page`. */
  readonly page: Page;
  /** The URL to visit, as it goes on the wire (a hash route's fragment kept). */
  readonly requestedUrl: string;
  readonly opts: VisitOptions;
  /** When the visit started (ms since epoch). */
  readonly startedAt: number;
  /** `tab.stops.count` when the visit started: a script stopped since may have been this page's (see `hang-watch.ts`). */
  readonly stopsAtStart: number;
  /** The result, filled stage by stage. */
  readonly result: VisitResult;
  /** What the page does (the observe stage fills it). */
  readonly activity: PageActivity;
  /** What the main document answered (the intercept stage fills it). */
  readonly document: MainDocument;
  /**
   * Await `p`, or throw {@link VisitAbort} as soon as the visit is aborted. Every wait of a
   * stage goes through it, so an abort ends the visit whatever stage it is in.
   */
  step<T>(p: Promise<T>): Promise<T>;
  /**
   * A call into the page (`ask()`, asked again if a stopped script ended it), as a {@link step}:
   * waited for up to `ms` (default and least: `STOP_AFTER_MS`, 10 s), then the script holding the
   * renderer is stopped and the call waited for again unless this page hung it (see
   * `answerOrStopHang`). Every call that can fail a visit goes through it, so that a sibling tab's
   * hang, which stalls every tab of the renderer, fails only that sibling.
   * @throws CallTimeoutError when the page hung or never answers; what `ask()` throws; VisitAbort
   */
  call<T>(ask: () => Promise<T>, what: string, ms?: number): Promise<T>;
  /**
   * {@link call}, with `fallback` for any failure of the call (it did not answer, it threw): a
   * read the visit can do without. An abort of the visit still throws `VisitAbort`.
   */
  callOr<T, F>(ask: () => Promise<T>, what: string, fallback: F, ms?: number): Promise<T | F>;
  /** Abort the visit with `error` (the first abort wins): the pending and every later `step` throws. */
  abort(error: RecordError): void;
  /** `true` once {@link abort} was called. */
  readonly aborted: boolean;
  /** The SPA signals read with the DOM (see `settled-read.ts`): `undefined` until read, `null` when they could not be. */
  spa: SpaReading | null | undefined;
  /**
   * The clickables read with the DOM when the visit clicks (see `settled-read.ts`), for click
   * discovery's first scan; `undefined` when not read, or once a stage changed the page since
   * (a screenshot, an accessibility check, scrolling), which makes discovery scan again.
   */
  clickables: ClickCandidate[] | undefined;
  /**
   * The settled read (see `settled-read.ts`) as JSON text, made in the settle stage's answer
   * that found the page settled (see `waitForSettle`), with when it was made (ms since epoch),
   * for the extract stage; `null` when none.
   */
  settledRead: { json: string; at: number } | null;
  /**
   * The body of document response `of` as the server sent it (see `server-body.ts`), asked for
   * by the settle stage and again by the extract stage when the page shows another document by
   * then; `undefined` when not asked for, a `body` of `null` when it could not be read.
   */
  serverBody: { of: Response; body: Promise<Buffer | null> } | undefined;
  /**
   * The signature of the control click discovery worked last (see `ClickDiscovery.clicked`), or
   * `null` before its first click: from then on the page's console errors and uncaught exceptions
   * are the clicks' (`clickErrors`), not the page's as loaded.
   */
  clicking: string | null;
  /** What the page raised after click discovery's first click (see `ClickDiscovery.errors`; at most `MAX_KEPT`). */
  clickErrors: ClickError[];
}

/**
 * A fresh context for one visit of `requestedUrl` in `tab`: a blank result (see
 * `blankVisitResult`), empty activity and main-document state, not aborted.
 */
export function newVisitContext(tab: VisitTab, requestedUrl: string, opts: VisitOptions): VisitContext {
  let reject!: (e: VisitAbort) => void;
  const abortion = new Promise<never>((_, rej) => (reject = rej));
  abortion.catch(() => {});
  let aborted = false;
  return {
    tab,
    page: tab.page,
    requestedUrl,
    opts,
    startedAt: Date.now(),
    stopsAtStart: tab.stops.count,
    result: blankVisitResult(),
    activity: new PageActivity(),
    document: new MainDocument(),
    step: <T>(p: Promise<T>): Promise<T> => Promise.race([p, abortion]),
    call: <T>(ask: () => Promise<T>, what: string, ms = STOP_AFTER_MS): Promise<T> => Promise.race([answerOrStopHang(tab, ask, ms, what), abortion]),
    callOr: <T, F>(ask: () => Promise<T>, what: string, fallback: F, ms = STOP_AFTER_MS): Promise<T | F> =>
      Promise.race([answerOrStopHang(tab, ask, ms, what).catch((): F => fallback), abortion]),
    abort(error: RecordError): void {
      aborted = true;
      reject(new VisitAbort(error));
    },
    get aborted(): boolean {
      return aborted;
    },
    spa: undefined,
    clickables: undefined,
    settledRead: null,
    serverBody: undefined,
    clicking: null,
    clickErrors: [],
  };
}
