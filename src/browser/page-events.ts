/**
 * The events of a reused tab's page, listened to once per tab. A visit subscribes and
 * unsubscribes here, in plain JavaScript; the Playwright listener of an event is added on its
 * first subscription and stays for the page's life, unless a visit mutes a flood of it (see
 * `PageEvents.mute`).
 *
 * Why: each `page.on`/`page.off` is a Playwright API call (a captured stack, and for `request`,
 * `response`, `console`, `dialog` … a subscription message to Playwright's server when the first
 * listener comes or the last goes). Adding and removing the ten listeners of the observe stage
 * on every visit cost about 2 ms of Node CPU per page on the synthetic bench, more than the
 * rest of the stage.
 * @module
 */
import type { ConsoleMessage, Dialog, Download, Page, Request, Response } from 'playwright';

/** The page events a visit listens to, with what each hands its listener. */
export interface PageEventMap {
  dialog: Dialog;
  download: Download;
  crash: Page;
  popup: Page;
  console: ConsoleMessage;
  pageerror: Error;
  request: Request;
  requestfinished: Request;
  requestfailed: Request;
  response: Response;
}

/** A name of {@link PageEventMap}. */
export type PageEventName = keyof PageEventMap;

type Listener<E extends PageEventName> = (arg: PageEventMap[E]) => void;

/**
 * What happens to an event no visit listens to, where Playwright's own default (with no
 * listener) matters: a dialog is answered (a `beforeunload` accepted, so the tab can still
 * navigate away; any other dismissed, as Playwright does), a download cancelled.
 */
function unheard<E extends PageEventName>(event: E, arg: PageEventMap[E]): void {
  if (event === 'dialog') {
    const d = arg as Dialog;
    void (d.type() === 'beforeunload' ? d.accept() : d.dismiss()).catch(() => {});
  } else if (event === 'download') {
    void (arg as Download).cancel().catch(() => {});
  }
}

/** The listeners of one page, by event (see the module comment). */
export class PageEvents {
  private readonly listeners = new Map<PageEventName, Set<(arg: never) => void>>();
  /** The one Playwright listener of each event, while it is on the page. */
  private readonly attached = new Map<PageEventName, (arg: never) => void>();

  /** @param page - the tab's page; its Playwright listeners are added lazily, one per event */
  constructor(private readonly page: Page) {}

  /**
   * Listen to `event` until the returned function is called. Listeners run in the order they
   * subscribed; one that throws does not keep the others from running. Puts the page's
   * Playwright listener of `event` back if {@link mute} took it off.
   * @returns the unsubscribe function (idempotent)
   */
  on<E extends PageEventName>(event: E, listener: Listener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set<(arg: never) => void>();
      this.listeners.set(event, set);
    }
    if (!this.attached.has(event)) this.attach(event, set);
    const entry = listener as (arg: never) => void;
    set.add(entry);
    return () => void set.delete(entry);
  }

  /**
   * Stop hearing `event` from the page until the next {@link on} of it: its Playwright listener
   * is taken off, so Playwright stops sending the event to this process at all. For a flood that
   * a visit no longer records (a page that logs 100,000 console lines: each `console` event
   * carries a handle per argument, kept until the document goes, ~3 KB a message). Only for
   * events whose default with no listener does nothing (not `dialog`, `download`).
   */
  mute(event: Exclude<PageEventName, 'dialog' | 'download'>): void {
    const handler = this.attached.get(event);
    if (!handler) return;
    this.attached.delete(event);
    (this.page.off.bind(this.page) as unknown as (e: PageEventName, h: (arg: never) => void) => Page)(event, handler);
  }

  /** Add the one Playwright listener of `event`: it hands the event to the visit's listeners of the moment. */
  private attach<E extends PageEventName>(event: E, set: Set<(arg: never) => void>): void {
    const handler = (arg: PageEventMap[E]): void => {
      if (set.size === 0) return unheard(event, arg);
      for (const l of [...set]) {
        try {
          (l as Listener<E>)(arg);
        } catch {
          // A listener's failure is its own; the event still reaches the others.
        }
      }
    };
    this.attached.set(event, handler as (arg: never) => void);
    (this.page.on.bind(this.page) as unknown as (e: E, h: (arg: PageEventMap[E]) => void) => Page)(event, handler);
  }
}
