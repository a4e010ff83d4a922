/**
 * Code that runs inside the page (serialized by Playwright: nothing outside the function body is
 * in reach) to see content that arrives over a connection the page keeps open.
 * @module
 */

/** What {@link installStreamWatch} keeps on `window.__spacrawlStreams`. */
export interface StreamWatchState {
  /** WebSockets and EventSources opened by the page that have not delivered their first message yet. */
  awaiting: number;
  /**
   * WebSockets that have owed the page an answer for less than {@link SOCKET_ANSWER_MS} at
   * `now` (a `performance.now()`): the page sent a message on an open socket and no message has
   * come back since (see {@link installStreamWatch}).
   */
  asking: (now: number) => number;
}

/**
 * How long (ms) a message the page sent on a WebSocket holds the settle while no message has
 * come back: the answer to a subscription (graphql-ws `subscribe`, Meteor's DDP `sub`, Phoenix's
 * `phx_join`, socket.io's namespace connect) is the page's content, and a socket that never
 * answers (the page only reports something) costs a page this long, not the cap.
 */
export const SOCKET_ANSWER_MS = 2000;

/**
 * Init script, run in every frame before the page's own scripts: counts the WebSockets and
 * EventSources the page opens until each delivers its first message (a WebSocket `message`; an
 * EventSource `message` or any named event the page listens for), errs, closes or is closed by
 * the page. Content that a
 * page renders from a push connection arrives only with that first message, often long after
 * `load` and after the network and the DOM have gone quiet: while one is awaited, the page is not
 * settled (the settle cap still applies). The first message also restarts the DOM quiet clock of
 * `installMutationClock`, so the page must go quiet again after it. Later messages are not
 * waited for (a feed that pushes forever must not hold the settle), unless the page asked for
 * them: a message the page sends on an open WebSocket is a question until a message comes back
 * (each message answers one question; an error or a close answers them all), awaited for at
 * most {@link SOCKET_ANSWER_MS} (`asking`). Every protocol over WebSockets that a page
 * subscribes with greets first (graphql-ws' `connection_ack`, DDP's `connected`, socket.io's
 * open packet, Action Cable's `welcome`): its first message is that greeting, and the content
 * is the answer to what the page sends once greeted.
 *
 * The page's own constructors are replaced by subclasses, so `instanceof`, the static constants
 * (`WebSocket.OPEN`) and every method behave as before.
 */
export function installStreamWatch(): void {
  const w = window as unknown as { __spacrawlStreams?: StreamWatchState; __spacrawl?: { last: number } };
  if (w.__spacrawlStreams) return;
  // Same value as SOCKET_ANSWER_MS (an init script cannot refer to module constants).
  const answerMs = 2000;
  // The sockets that owe the page an answer, by when their debt began (`performance.now()`).
  const owing = new Map<EventTarget, number>();
  const state: StreamWatchState = {
    awaiting: 0,
    asking: (now) => {
      let n = 0;
      for (const since of owing.values()) if (now - since < answerMs) n++;
      return n;
    },
  };
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
    const add = EventTarget.prototype.addEventListener;
    const WebSocket = class WebSocket extends NativeWebSocket {
      private readonly __watch: { first: () => void; stop: () => void };
      /** Messages the page sent that no message has answered yet. */
      private __owed = 0;
      constructor(...args: never[]) {
        super(...args);
        this.__watch = watch(this);
        // Registered before any listener of the page's, like the watch's own.
        add.call(this, 'message', () => {
          if (this.__owed === 0) return;
          this.__owed--;
          if (this.__owed === 0) owing.delete(this);
          if (w.__spacrawl) w.__spacrawl.last = performance.now();
        });
        const over = (): void => {
          this.__owed = 0;
          owing.delete(this);
        };
        add.call(this, 'error', over);
        add.call(this, 'close', over);
      }
      // A message sent on an open socket is a question (see the function comment); one sent
      // before it opens throws, and one sent after it began closing is dropped.
      send(...a: unknown[]): void {
        (NativeWebSocket.prototype as unknown as { send: (...x: unknown[]) => void }).send.apply(this, a);
        if ((this as unknown as { readyState: number }).readyState !== 1) return;
        this.__owed++;
        if (!owing.has(this)) owing.set(this, performance.now());
      }
      // Its `close` event comes only when the server answers the closing handshake.
      override close(...a: unknown[]): void {
        this.__watch.stop();
        this.__owed = 0;
        owing.delete(this);
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
