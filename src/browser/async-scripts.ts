/**
 * Code that runs inside the page (serialized by Playwright: nothing outside the function body is
 * in reach) to count the work the browser does for a page away from its main thread, for the
 * settle rule.
 * @module
 */

/**
 * Init script, run in every frame after `installScheduleWatch` and before the page's own
 * scripts. Counts on `window.__spacrawl.offThread` the operations under way that the browser runs
 * for the page off its main thread and hands back as an event or a settled promise, with no
 * timer, request or DOM change of the page's own meanwhile:
 * - IndexedDB: a database being opened or deleted (until `success` or `error`), a transaction
 *   (until `complete` or `abort`: the page's handlers of its requests have run by then);
 * - WebAssembly's `compile`, `instantiate`, `compileStreaming` and `instantiateStreaming` (a
 *   module of megabytes compiles for a few hundred ms before the app behind it renders);
 * - the Cache API (`caches` and `Cache` methods), Web Crypto (`crypto.subtle`) and
 *   `createImageBitmap`.
 *
 * And it counts the page's questions to its dedicated Web Workers: a post to a worker is
 * `messages.posted` (the schedule watch's channel messages: no early settle) until the worker sends
 * a message back (each message answers one post), fails (`error`) or is terminated; for its first
 * 2 s a worker's debt is also awaited (`workersOwing(now)`, `now` a `performance.now()`: the
 * workers whose debt began less than 2 s before it), as a parse or a query in a worker may take
 * longer than the full quiet window. A worker that never answers costs a page 2 s, not the cap.
 *
 * While one is under way the page is not settled, by either window (`SettleState.awaitingMessages`):
 * a page that renders its links from a database it fills, or once its WebAssembly has compiled,
 * was read before them, and a fill of a second or more outlasts the full quiet window. Each of
 * these ends by itself (none waits for a person or for another page); one that does not (an open
 * request blocked by another tab's connection) holds the page to the settle cap.
 *
 * A wrapped function that returns a promise hands the page a promise of its own that settles as
 * the browser's does, one microtask later: a rejection the page does not handle is still reported
 * as the page's, and one it handles is not reported. The script's frames are named
 * `INJECTED_SOURCE_URL` (see `init-scripts.ts`), so a page error's location skips them.
 */
export function installAsyncWatch(): void {
  type Fn = (...a: unknown[]) => unknown;
  const w = window as unknown as Record<string, unknown> & {
    __spacrawl?: { offThread?: number; messages?: { posted: number; handled: number }; workersOwing?: (now: number) => number };
  };
  const state = w.__spacrawl;
  if (!state || !state.messages || state.offThread !== undefined) return;
  state.offThread = 0;
  const counted = state as { offThread: number };
  const messages = state.messages;
  /** Count one operation under way; the function returned ends it (once). */
  const begin = (): (() => void) => {
    counted.offThread++;
    let over = false;
    return () => {
      if (over) return;
      over = true;
      counted.offThread--;
    };
  };
  const NativePromise = Promise;
  const addListener = EventTarget.prototype.addEventListener;
  /** Replace `owner[name]` with a function that counts each call until what it returns says it is over. */
  const wrap = (owner: unknown, name: string, watch: (out: unknown) => unknown): void => {
    const o = owner as Record<string, unknown> | null | undefined;
    const fn = o?.[name];
    if (typeof fn !== 'function') return;
    o![name] = function (this: unknown, ...a: unknown[]): unknown {
      return watch((fn as Fn).apply(this, a));
    };
  };
  const promised = (out: unknown): unknown => {
    if (!(out instanceof NativePromise)) return out;
    const end = begin();
    return new NativePromise((resolve, reject) => {
      out.then(
        (v) => {
          end();
          resolve(v);
        },
        (e: unknown) => {
          end();
          reject(e);
        },
      );
    });
  };
  /** An event target that is over with the first of `events`. */
  const until =
    (...events: string[]) =>
    (out: unknown): unknown => {
      if (!(out instanceof EventTarget)) return out;
      const end = begin();
      for (const e of events) addListener.call(out, e, end, { once: true });
      return out;
    };
  const proto = (name: string): unknown => (w[name] as { prototype?: unknown } | undefined)?.prototype;
  wrap(proto('IDBFactory'), 'open', until('success', 'error'));
  wrap(proto('IDBFactory'), 'deleteDatabase', until('success', 'error'));
  wrap(proto('IDBDatabase'), 'transaction', until('complete', 'abort'));
  for (const name of ['compile', 'instantiate', 'compileStreaming', 'instantiateStreaming']) wrap(w.WebAssembly, name, promised);
  for (const name of ['open', 'match', 'has', 'keys', 'delete']) wrap(proto('CacheStorage'), name, promised);
  for (const name of ['match', 'matchAll', 'add', 'addAll', 'put', 'delete', 'keys']) wrap(proto('Cache'), name, promised);
  for (const name of ['encrypt', 'decrypt', 'sign', 'verify', 'digest', 'generateKey', 'deriveKey', 'deriveBits', 'importKey', 'exportKey', 'wrapKey', 'unwrapKey']) {
    wrap(proto('SubtleCrypto'), name, promised);
  }
  wrap(w, 'createImageBitmap', promised);
  // The page's questions to its workers (see the function comment).
  const answerMs = 2000;
  const owing = new Map<Worker, number>(); // workers that owe an answer, by when their debt began
  state.workersOwing = (now: number): number => {
    let n = 0;
    for (const since of owing.values()) if (now - since < answerMs) n++;
    return n;
  };
  const WorkerProto = (window as unknown as { Worker?: { prototype: Worker } }).Worker?.prototype;
  if (WorkerProto) {
    const postToWorker = WorkerProto.postMessage as Fn;
    const terminate = WorkerProto.terminate as Fn;
    const owed = new WeakMap<Worker, number>();
    const ended = new WeakSet<Worker>();
    const answer = (worker: Worker, all: boolean): void => {
      const n = owed.get(worker) ?? 0;
      const done = all ? n : Math.min(1, n);
      owed.set(worker, n - done);
      messages.handled += done;
      if (n - done === 0) owing.delete(worker);
    };
    WorkerProto.postMessage = function postMessage(this: Worker, ...a: unknown[]): void {
      postToWorker.apply(this, a); // a message that cannot be cloned throws here, and is not counted
      if (ended.has(this)) return;
      if (!owed.has(this)) {
        owed.set(this, 0);
        addListener.call(this, 'message', () => answer(this, false));
        addListener.call(this, 'messageerror', () => answer(this, false));
        addListener.call(this, 'error', () => answer(this, true));
      }
      owed.set(this, owed.get(this)! + 1);
      if (!owing.has(this)) owing.set(this, performance.now());
      messages.posted++;
    };
    WorkerProto.terminate = function (this: Worker): void {
      ended.add(this);
      answer(this, true);
      terminate.call(this);
    };
  }
}
