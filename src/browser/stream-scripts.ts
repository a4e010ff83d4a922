/**
 * Code that runs inside the page (serialized by Playwright: nothing outside the function body is
 * in reach) to see content that arrives over a connection the page keeps open.
 * @module
 */

/** What {@link installStreamWatch} keeps on `window.__spacrawlStreams`. */
export interface StreamWatchState {
  /** WebSockets and EventSources opened by the page that have not delivered their first message yet. */
  awaiting: number;
}

/**
 * Init script, run in every frame before the page's own scripts: counts the WebSockets and
 * EventSources the page opens until each delivers its first message (a WebSocket `message`; an
 * EventSource `message` or any named event the page listens for), errs, closes or is closed by
 * the page. Content that a
 * page renders from a push connection arrives only with that first message, often long after
 * `load` and after the network and the DOM have gone quiet: while one is awaited, the page is not
 * settled (the settle cap still applies). The first message also restarts the DOM quiet clock of
 * `installMutationClock`, so the page must go quiet again after it. Later messages are not
 * waited for: a feed that pushes forever must not hold the settle.
 *
 * The page's own constructors are replaced by subclasses, so `instanceof`, the static constants
 * (`WebSocket.OPEN`) and every method behave as before.
 */
export function installStreamWatch(): void {
  const w = window as unknown as { __spacrawlStreams?: StreamWatchState; __spacrawl?: { last: number } };
  if (w.__spacrawlStreams) return;
  const state: StreamWatchState = { awaiting: 0 };
  w.__spacrawlStreams = state;
  /**
   * Start waiting for `target`'s first message. Returns `first` (ends the wait as a message does)
   * and `stop` (ends it with no message: the page closed the connection itself).
   */
  const watch = (target: EventTarget): { first: () => void; stop: () => void } => {
    let waiting = true;
    state.awaiting++;
    const stop = (): void => {
      if (!waiting) return;
      waiting = false;
      state.awaiting--;
    };
    const first = (): void => {
      if (!waiting) return;
      stop();
      if (w.__spacrawl) w.__spacrawl.last = performance.now();
    };
    // Registered before any listener of the page's, so it runs first; the page's handlers run
    // in the same task, before the settle state can be read again.
    const add = EventTarget.prototype.addEventListener;
    add.call(target, 'message', first);
    add.call(target, 'error', stop);
    add.call(target, 'close', stop);
    return { first, stop };
  };
  type Ctor = new (...args: never[]) => EventTarget & { close(...a: unknown[]): void };
  const g = window as unknown as Record<string, Ctor | undefined>;
  const NativeWebSocket = g.WebSocket;
  if (NativeWebSocket) {
    const WebSocket = class WebSocket extends NativeWebSocket {
      private readonly __watch: { first: () => void; stop: () => void };
      constructor(...args: never[]) {
        super(...args);
        this.__watch = watch(this);
      }
      // Its `close` event comes only when the server answers the closing handshake.
      override close(...a: unknown[]): void {
        this.__watch.stop();
        return super.close(...a);
      }
    };
    g.WebSocket = WebSocket;
  }
  const NativeEventSource = g.EventSource;
  if (NativeEventSource) {
    const EventSource = class EventSource extends NativeEventSource {
      private readonly __watch: { first: () => void; stop: () => void };
      private readonly __types = new Set<string>(['message', 'open', 'error']);
      constructor(...args: never[]) {
        super(...args);
        this.__watch = watch(this);
      }
      // An EventSource has no `close` event.
      override close(...a: unknown[]): void {
        this.__watch.stop();
        return super.close(...a);
      }
      // A named event (`event: update` in the stream) is delivered only to its own listeners:
      // the first one the page listens for counts as a first message too.
      override addEventListener(type: string, listener: unknown, options?: unknown): void {
        if (!this.__types.has(type)) {
          this.__types.add(type);
          EventTarget.prototype.addEventListener.call(this, type, this.__watch.first);
        }
        return (EventTarget.prototype.addEventListener as (...a: unknown[]) => void).call(this, type, listener, options);
      }
    };
    g.EventSource = EventSource;
  }
}

/** The number of push connections still awaiting their first message (0 when the watch is not installed). */
export function awaitingStreams(): number {
  return (window as unknown as { __spacrawlStreams?: StreamWatchState }).__spacrawlStreams?.awaiting ?? 0;
}
