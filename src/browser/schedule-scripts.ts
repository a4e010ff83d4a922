/**
 * Code that runs inside the page (serialized by Playwright: nothing outside the function body is
 * in reach) to count the work a page has scheduled, for the settle rule: timers due soon, short
 * intervals, animation frames, idle callbacks, channel messages, and reads of fetch() bodies
 * (work handed off the main thread: `async-scripts.ts`).
 *
 * Over 400 lines because {@link installScheduleWatch} is one init script: Playwright serializes
 * each function on its own, so a part moved to another module would be another init script that
 * every frame of every visit evaluates, for watches that share one `pending` set.
 * @module
 */

/**
 * Timers due within this many ms (and intervals at most this long) count as work the page has
 * scheduled: while one is pending, a page is not settled early (see `settleState`).
 */
export const SOON_TIMER_MS = 1000;

/**
 * Timeouts due later than {@link SOON_TIMER_MS} but within this many ms are remembered too (not
 * as scheduled work): a page that has rendered nothing yet waits for them (see
 * `SettleState.blank`), as an app that starts rendering after a delay (`setTimeout(start,
 * 1500)`) would otherwise be read empty. Longer than the default settle cap (5 s), which ends
 * the wait first.
 */
export const LATER_TIMER_MS = 10_000;

/**
 * Init script, run in every frame after `installMutationClock` and before the page's own
 * scripts. Adds to `window.__spacrawl`:
 * - `pending`: the work the page has scheduled soon (`setTimeout` due within
 *   {@link SOON_TIMER_MS}, `setInterval` of at most that period until cleared,
 *   `requestAnimationFrame`, `requestIdleCallback`, `scheduler.postTask` and
 *   `scheduler.yield()`), each as `{kind, id}`, timeouts and
 *   intervals with `due` (`performance.now()` of their next run); an interval or an
 *   animation-frame loop that has changed nothing but pixels for 1 s (an animation) is marked
 *   `ticking` and no longer counts as scheduled work (see the settle probe)
 * - `messages`: `MessageChannel` messages posted and handled (schedulers, React's among them,
 *   chain work slices this way, with no timer, request or DOM change in between; the async
 *   watch adds the page's posts to its workers and their answers)
 * - `bodyReads`: reads of response bodies in progress: a body method (`json()`, `text()` …)
 *   until its promise settles, and a body stream from the moment the page starts reading it
 *   (`getReader()`, `pipeTo()`, `pipeThrough()`, async iteration) until it reads the end,
 *   cancels, releases its reader or the pipe ends. Merely taking `response.body` (to test it, or
 *   to wrap it in another `Response`) does not count: nothing would ever end that count.
 * - `requests`: fetch() and XMLHttpRequest calls under way (until the response headers, or the
 *   end for an XMLHttpRequest)
 * - `callsStarted`, `lastCallAt`: such calls to `http:` or `https:` URLs started so far, and the
 *   `performance.now()` of the last (see `SettleState.callsStarted`)
 * - `later`: the `setTimeout`s due after {@link SOON_TIMER_MS} and within {@link LATER_TIMER_MS},
 *   each as `{id, due}` (`due`: `performance.now()` when it comes due), until they run or are cleared
 */
export function installScheduleWatch(): void {
  type Fn = (...a: unknown[]) => unknown;
  const state = (window as unknown as { __spacrawl?: Record<string, unknown> }).__spacrawl;
  if (!state || state.pending) return;
  // Same values as SOON_TIMER_MS and LATER_TIMER_MS (an init script cannot refer to module constants).
  const soon = 1000;
  const laterMs = 10_000;
  const pending = new Set<{ kind: string; id: unknown; due?: number }>();
  const later = new Set<{ id: unknown; due: number }>();
  const messages = { posted: 0, handled: 0 };
  const reads = { n: 0 };
  state.pending = pending;
  state.later = later;
  state.messages = messages;
  Object.defineProperty(state, 'bodyReads', { get: () => reads.n, enumerable: true });
  const win = window as unknown as Record<string, Fn | undefined>;
  const set = win.setTimeout!.bind(window) as (f: Fn, ms?: number) => unknown;
  const clear = win.clearTimeout!.bind(window) as (id: unknown) => void;
  // A timeout due soon: `id` is what the page holds, `native` the browser's timer behind it
  // (another one once fast-forwarded), `run` the page's handler with its arguments.
  type Timer = { kind: 'timeout'; id: unknown; native: unknown; due: number; run: () => unknown };
  win.setTimeout = function setTimeout(handler: unknown, delay?: unknown, ...args: unknown[]): unknown {
    const ms = Number(delay) || 0;
    if (typeof handler === 'function' && ms > soon && ms <= laterMs) {
      const entry = { id: undefined as unknown, due: performance.now() + ms };
      entry.id = set(() => {
        later.delete(entry);
        return (handler as Fn).apply(window, args);
      }, ms);
      later.add(entry);
      return entry.id;
    }
    if (typeof handler !== 'function' || ms > soon) return (set as Fn)(handler, delay, ...args);
    const key: Timer = { kind: 'timeout', id: undefined, native: undefined, due: performance.now() + ms, run: () => undefined };
    key.run = () => {
      pending.delete(key);
      return (handler as Fn).apply(window, args);
    };
    key.id = key.native = set(key.run, ms);
    pending.add(key);
    return key.id;
  };
  win.clearTimeout = function clearTimeout(id: unknown): void {
    for (const k of later) if (k.id === id) later.delete(k);
    for (const k of pending) {
      if (k.kind === 'timeout' && k.id === id) {
        pending.delete(k);
        return clear((k as Timer).native);
      }
    }
    return clear(id);
  };
  // Fast-forward (see `fastForwardTimers`): the pending timeouts run now, in the order they are
  // due, each in its own task, as if their time had come.
  // The settle probe's own timers and idle callbacks: never counted as the page's work.
  state.setTimer = (f: Fn, ms: number): unknown => set(f, ms);
  const ric = window.requestIdleCallback?.bind(window);
  state.onIdle = (f: (d: IdleDeadline) => void, timeout: number): unknown => (ric ? ric(f, { timeout }) : set(() => f({ didTimeout: true, timeRemaining: () => 0 }), timeout));
  state.fastForward = (): number => {
    const due = ([...pending].filter((k) => k.kind === 'timeout') as Timer[]).sort((a, b) => a.due - b.due);
    for (const k of due) {
      clear(k.native);
      k.native = set(k.run, 0);
    }
    return due.length;
  };
  // Repeating work (an interval; an animation-frame loop: a frame asked for from inside a frame
  // callback) that has gone on for `steadyMs` changing nothing but pixels (no DOM change beyond
  // `style` and `class` attributes: `content` of `installMutationClock`; no fetch() or
  // XMLHttpRequest started: a poll) is an animation (a canvas, a transform tween, a carousel
  // sliding by class), not work that will still change what is read: it stops counting as
  // scheduled (`ticking`). Any such change or call starts its clock again; so a ticking clock or
  // a poll keeps holding the settle as before.
  const steadyMs = 1000;
  const linkClock = (): unknown => `${String(state.content ?? state.last)} ${String(state.callsStarted ?? 0)}`;
  type Key = { kind: string; id: unknown; due?: number; ticking?: boolean };
  /** The steady clock of a repeating source: since when its runs changed no link or title. */
  type Steady = { link: unknown; since: number };
  const steadyNow = (st: Steady): boolean => {
    const now = performance.now();
    const link = linkClock();
    if (link !== st.link) {
      st.link = link;
      st.since = now;
    }
    return now - st.since >= steadyMs;
  };
  // The animation-frame loop under way: frames asked for from inside a frame callback continue
  // it; a frame asked for from outside one starts it again.
  let inFrame = false;
  let frameLoop: Steady | null = null;
  const track = (kind: string, setName: string, clearName: string, isSoon: (rest: unknown[]) => boolean, once: boolean): void => {
    const setFn = win[setName]?.bind(window);
    const clearFn = win[clearName]?.bind(window);
    if (!setFn || !clearFn) return;
    const frames = kind === 'raf';
    win[setName] = function (handler: unknown, ...rest: unknown[]): unknown {
      if (typeof handler !== 'function' || !isSoon(rest)) return setFn(handler, ...rest);
      // An interval's next run (`due`, `performance.now()`) moves on each time it runs.
      const period = once ? null : Math.max(0, Number(rest[0]) || 0);
      const key: Key = { kind, id: undefined };
      if (period !== null) key.due = performance.now() + period;
      const steady: Steady | null = period !== null ? { link: linkClock(), since: performance.now() } : null;
      if (frames) {
        if (!inFrame || frameLoop === null) frameLoop = { link: linkClock(), since: performance.now() };
        key.ticking = steadyNow(frameLoop);
      }
      key.id = setFn(function (this: unknown, ...a: unknown[]): unknown {
        if (once) pending.delete(key);
        else if (period !== null) key.due = performance.now() + period;
        if (steady) key.ticking = steadyNow(steady);
        if (!frames) return (handler as Fn).apply(this, a);
        inFrame = true;
        try {
          return (handler as Fn).apply(this, a);
        } finally {
          inFrame = false;
        }
      }, ...rest);
      pending.add(key);
      return key.id;
    };
    win[clearName] = function (id: unknown): unknown {
      for (const k of pending) if (k.kind === kind && k.id === id) pending.delete(k);
      return clearFn(id);
    };
  };
  track('interval', 'setInterval', 'clearInterval', (rest) => (Number(rest[0]) || 0) <= soon, false);
  // The Prioritized Task Scheduling API: a task posted without a delay is scheduled work until it
  // runs or its signal aborts it; one with a delay is a timeout (the page's own, wrapped above:
  // due soon it is fast-forwarded like any) that posts the task when it comes due, as the
  // standard does ("wait for delay, then queue the task"); `scheduler.yield()` is scheduled
  // work until its continuation is due. Each hands the page a promise of its own that settles
  // as the browser's does.
  const sched = (window as unknown as { scheduler?: Record<string, Fn | undefined> }).scheduler;
  const nativePost = sched?.postTask?.bind(sched);
  if (sched && nativePost) {
    const pageTimeout = win.setTimeout!;
    const pageClear = win.clearTimeout!;
    type Signal = AbortSignal | undefined;
    const post = (cb: Fn, options: Record<string, unknown> | undefined): unknown => {
      const signal = options?.signal as Signal;
      const key = { kind: 'task', id: undefined };
      const out = nativePost(function (this: unknown, ...a: unknown[]): unknown {
        pending.delete(key);
        return cb.apply(this, a);
      }, options);
      if (signal?.aborted) return out;
      pending.add(key);
      signal?.addEventListener('abort', () => pending.delete(key), { once: true });
      return out;
    };
    sched.postTask = function postTask(cb: unknown, options?: Record<string, unknown>): unknown {
      // Anything the standard throws or rejects for is the original's to do.
      if (typeof cb !== 'function' || (options !== undefined && (options === null || typeof options !== 'object'))) return nativePost(cb, options);
      const delay = Number(options?.delay) || 0;
      const signal = options?.signal as Signal;
      if (delay <= 0 || signal?.aborted || !(signal === undefined || signal instanceof AbortSignal)) return post(cb as Fn, options);
      const rest = { ...options, delay: 0 };
      return new Promise((resolve, reject) => {
        const t = pageTimeout(() => (post(cb as Fn, rest) as Promise<unknown>).then(resolve, reject), delay);
        signal?.addEventListener(
          'abort',
          () => {
            pageClear(t);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    } as Fn;
    const nativeYield = sched.yield?.bind(sched);
    if (nativeYield) {
      sched.yield = function (...a: unknown[]): unknown {
        const out = nativeYield(...a);
        if (!(out instanceof Promise)) return out;
        const key = { kind: 'task', id: undefined };
        pending.add(key);
        return new Promise((resolve, reject) => {
          out.then(
            (v) => {
              pending.delete(key);
              resolve(v);
            },
            (e: unknown) => {
              pending.delete(key);
              reject(e);
            },
          );
        });
      } as Fn;
    }
  }
  track('raf', 'requestAnimationFrame', 'cancelAnimationFrame', () => true, true);
  track('idle', 'requestIdleCallback', 'cancelIdleCallback', () => true, true);
  // A message handled elsewhere (a worker, another frame) keeps its count: no early settle then.
  const Port = window.MessagePort?.prototype;
  if (Port) {
    const post = Port.postMessage;
    Port.postMessage = function postMessage(this: MessagePort, ...a: unknown[]): void {
      messages.posted++;
      return (post as (...x: unknown[]) => void).apply(this, a);
    };
    // One wrapper per handler, so removeEventListener and the onmessage getter still see the
    // page's own functions.
    const wrappers = new WeakMap<object, Fn>();
    const handled = (fn: Fn): Fn => {
      let wrapped = wrappers.get(fn);
      if (!wrapped) {
        wrapped = function (this: unknown, ...a: unknown[]): unknown {
          messages.handled++;
          return fn.apply(this, a);
        };
        wrappers.set(fn, wrapped);
      }
      return wrapped;
    };
    const onmessage = Object.getOwnPropertyDescriptor(Port, 'onmessage');
    if (onmessage?.set && onmessage.get) {
      const set = onmessage.set;
      const own = new WeakMap<MessagePort, unknown>();
      Object.defineProperty(Port, 'onmessage', {
        configurable: true,
        enumerable: onmessage.enumerable,
        get(this: MessagePort) {
          return own.has(this) ? own.get(this) : onmessage.get!.call(this);
        },
        set(this: MessagePort, fn: unknown) {
          own.set(this, fn);
          set.call(this, typeof fn === 'function' ? handled(fn as Fn) : fn);
        },
      });
    }
    const add = Port.addEventListener;
    const remove = Port.removeEventListener;
    const listener = (type: string, fn: unknown): unknown => (type === 'message' && typeof fn === 'function' ? handled(fn as Fn) : fn);
    Port.addEventListener = function addEventListener(this: MessagePort, type: string, fn: unknown, ...rest: unknown[]): void {
      return (add as (...x: unknown[]) => void).call(this, type, listener(type, fn), ...rest);
    };
    Port.removeEventListener = function removeEventListener(this: MessagePort, type: string, fn: unknown, ...rest: unknown[]): void {
      return (remove as (...x: unknown[]) => void).call(this, type, listener(type, fn), ...rest);
    };
  }
  // The page's fetch() and XMLHttpRequest calls under way (a timeout is not fast-forwarded while
  // one is: it may be the call's own time limit), and those over HTTP(S) started so far with the
  // time of the last: the crawler hears of a request only once its network event has passed
  // through the browser process (and, while requests are routed, Playwright), which can come
  // after the page has already answered that it is quiet.
  state.requests = 0;
  state.callsStarted = 0;
  state.lastCallAt = 0;
  const calls = state as { requests: number; callsStarted: number; lastCallAt: number };
  const started = (url: unknown): void => {
    try {
      const proto = new URL(String(url), location.href).protocol;
      if (proto !== 'http:' && proto !== 'https:') return;
    } catch {
      return;
    }
    calls.callsStarted++;
    calls.lastCallAt = performance.now();
  };
  const nativeFetch = window.fetch as typeof window.fetch | undefined;
  if (typeof nativeFetch === 'function') {
    window.fetch = function fetch(this: unknown, ...a: Parameters<typeof window.fetch>): Promise<Response> {
      const out = (nativeFetch as Fn).apply(this, a) as Promise<Response>;
      calls.requests++;
      started(a[0] instanceof Request ? a[0].url : a[0]);
      const done = (): void => {
        calls.requests--;
      };
      out.then(done, done);
      return out;
    } as typeof window.fetch;
  }
  const XHR = window.XMLHttpRequest?.prototype;
  if (XHR) {
    const nativeOpen = XHR.open;
    const nativeSend = XHR.send;
    const urls = new WeakMap<XMLHttpRequest, unknown>();
    XHR.open = function open(this: XMLHttpRequest, ...a: unknown[]): void {
      urls.set(this, a[1]);
      return (nativeOpen as Fn).apply(this, a) as void;
    };
    XHR.send = function send(this: XMLHttpRequest, ...a: unknown[]): void {
      calls.requests++;
      let open = true;
      const end = (): void => {
        if (open) {
          open = false;
          calls.requests--;
        }
      };
      // Before send(): a synchronous request ends inside it.
      EventTarget.prototype.addEventListener.call(this, 'loadend', end, { once: true });
      try {
        (nativeSend as Fn).apply(this, a);
      } catch (e) {
        end();
        throw e;
      }
      started(urls.get(this));
    };
  }
  // Reads of response bodies. A response whose body the page never asks for is not waited for
  // (see the settle stage).
  const begin = (): (() => void) => {
    reads.n++;
    let open = true;
    return () => {
      if (open) {
        open = false;
        reads.n--;
      }
    };
  };
  const Resp = window.Response?.prototype as unknown as Record<string, Fn> | undefined;
  if (!Resp) return;
  for (const name of ['json', 'text', 'arrayBuffer', 'blob', 'formData', 'bytes']) {
    const read = Resp[name];
    if (typeof read !== 'function') continue;
    Resp[name] = function (this: unknown, ...a: unknown[]): unknown {
      const out = read.apply(this, a);
      if (out instanceof Promise) {
        const end = begin();
        out.then(end, end);
      }
      return out;
    };
  }
  const body = Object.getOwnPropertyDescriptor(Resp, 'body');
  const Stream = window.ReadableStream?.prototype as unknown as Record<string | symbol, Fn> | undefined;
  if (!body?.get || !Stream) return;
  const bodies = new WeakSet<object>();
  const get = body.get;
  Object.defineProperty(Resp, 'body', {
    configurable: true,
    enumerable: body.enumerable,
    get(this: object) {
      const s = get.call(this) as object | null;
      if (s) bodies.add(s);
      return s;
    },
  });
  const getReader = Stream.getReader!;
  Stream.getReader = function (this: object, ...a: unknown[]): unknown {
    const reader = getReader.apply(this, a) as Record<string, Fn>;
    if (!bodies.has(this)) return reader;
    bodies.delete(this);
    const end = begin();
    const read = reader.read!;
    const cancel = reader.cancel!;
    const release = reader.releaseLock!;
    reader.read = function (this: unknown, ...x: unknown[]): unknown {
      const out = read.apply(this, x) as Promise<{ done?: boolean }>;
      out.then((r) => r?.done && end(), end);
      return out;
    };
    reader.cancel = function (this: unknown, ...x: unknown[]): unknown {
      end();
      return cancel.apply(this, x);
    };
    reader.releaseLock = function (this: unknown, ...x: unknown[]): unknown {
      end();
      return release.apply(this, x);
    };
    return reader;
  };
  const pipeTo = Stream.pipeTo!;
  Stream.pipeTo = function (this: object, ...a: unknown[]): unknown {
    const out = pipeTo.apply(this, a);
    if (bodies.has(this) && out instanceof Promise) {
      bodies.delete(this);
      const end = begin();
      out.then(end, end);
    }
    return out;
  };
  // As the Streams standard defines it: pipe into the writable side, hand back the readable one.
  const pipeThrough = Stream.pipeThrough!;
  Stream.pipeThrough = function (this: object, ...a: unknown[]): unknown {
    const t = a[0] as { writable?: { locked?: boolean }; readable?: unknown } | undefined;
    // Anything the standard throws for (a locked stream, no transform) is the original's to throw.
    if (!bodies.has(this) || (this as { locked?: boolean }).locked || !t?.writable || !t.readable || t.writable.locked) return pipeThrough.apply(this, a);
    ((Stream.pipeTo as Fn).call(this, t.writable, a[1]) as Promise<unknown>).catch(() => {});
    return t.readable;
  };
  for (const key of ['values', Symbol.asyncIterator] as const) {
    const iterate = Stream[key];
    if (typeof iterate !== 'function') continue;
    Stream[key] = function (this: object, ...a: unknown[]): unknown {
      const it = iterate.apply(this, a) as Record<string, Fn>;
      if (!bodies.has(this)) return it;
      bodies.delete(this);
      const end = begin();
      const next = it.next!;
      const ret = it.return;
      it.next = function (this: unknown, ...x: unknown[]): unknown {
        const out = next.apply(this, x) as Promise<{ done?: boolean }>;
        out.then((r) => r?.done && end(), end);
        return out;
      };
      if (ret) {
        it.return = function (this: unknown, ...x: unknown[]): unknown {
          end();
          return ret.apply(this, x);
        };
      }
      return it;
    };
  }
}
