import type { createLogUpdate } from 'log-update';
import picocolors from 'picocolors';
import type { PageRecord } from '../model/record.js';
import { recordLine } from './terminal.js';
import { printable } from '../util/printable.js';

/** A stream the terminal log writes to (stderr), with the TTY fields Node sets on terminals. */
export interface LogStream extends NodeJS.WritableStream {
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

/** Environment variables the terminal log reads (`CI`, `NO_COLOR`, `FORCE_COLOR`, `TERM`). */
export type LogEnv = Readonly<Record<string, string | undefined>>;

/** Options of {@link TerminalLog}. */
export interface TerminalLogOptions {
  stream: LogStream;
  /** @default process.env */
  env?: LogEnv;
  /** `false` for `--no-progress`: never draw the live line. @default true */
  progress?: boolean;
  /** `--quiet`: no line per page (the summary and the issue table still print). @default false */
  quiet?: boolean;
  /** `--verbose`: settle timings on every page line, and a line per skipped URL. @default false */
  verbose?: boolean;
  /** Redraw interval of the live line (ms). @default 250 */
  intervalMs?: number;
}

/** What the live progress line shows. */
export interface ProgressStats {
  /** Pages decided (records with `skipped: null`). */
  done: number;
  /** URLs waiting in the frontier, or `null` when unknown. */
  queued: number | null;
  /** Pages with an error or a status >= 400. */
  errors: number;
}

/** `true` when `CI` is set to anything but `''`, `0` or `false`. */
export function isCI(env: LogEnv): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/**
 * Whether to colour the log, following Node's own rules: `FORCE_COLOR` (`0`/`false` off,
 * anything else on) wins, then `NO_COLOR` (any non-empty value) turns colour off, then only a
 * TTY that is not `TERM=dumb` gets colour.
 */
export function colorEnabled(stream: LogStream, env: LogEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === '0' || force.toLowerCase() === 'false');
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/**
 * Whether to draw the live progress line: only on a TTY that is not `TERM=dumb` and has a size
 * (a pseudo-terminal of 0 rows or columns cannot show it), not under `CI`, not with
 * `--no-progress` or `--quiet`. Otherwise the log is plain lines: no ANSI cursor codes and no
 * redraws (colour is decided separately by {@link colorEnabled}).
 */
export function liveProgressEnabled(stream: LogStream, env: LogEnv, progress: boolean, quiet: boolean): boolean {
  const sized = stream.rows !== 0 && stream.columns !== 0;
  return progress && !quiet && stream.isTTY === true && sized && !isCI(env) && env.TERM !== 'dumb';
}

/** `m:ss` (or `h:mm:ss`) for an elapsed time in ms. */
export function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60));
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${mm.padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/**
 * The live line, e.g. `42 pages done, 17 queued · 2.4 pages/s · 1 error · 0:17`.
 * @param elapsedMs - time since the crawl started (ms)
 */
export function progressLine(s: ProgressStats, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (s.done * 1000) / elapsedMs : 0;
  const queued = s.queued === null ? '' : `, ${s.queued} queued`;
  return `${s.done} page${s.done === 1 ? '' : 's'} done${queued} · ${rate.toFixed(1)} pages/s · ${s.errors} error${s.errors === 1 ? '' : 's'} · ${clock(elapsedMs)}`;
}

/**
 * The crawl's log on stderr. Lines that stay (one per page, notes, the summary) go through
 * {@link TerminalLog.line}; on a TTY a live progress line (drawn with `log-update`) sits under
 * them and is redrawn every `intervalMs` from the stats source given to {@link TerminalLog.start}.
 * Without a TTY, under `CI`, or with `--no-progress`, it writes plain lines only.
 */
export class TerminalLog {
  /** `true` when the live line is drawn. */
  readonly live: boolean;
  /** Colours of this log (no-ops when colour is off). */
  readonly colors: ReturnType<typeof picocolors.createColors>;
  private readonly opts: TerminalLogOptions;
  /** The live line's writer, once `log-update` has loaded (only for a live log: see the constructor). */
  private update: ReturnType<typeof createLogUpdate> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private current = '';
  private stopped = false;

  constructor(opts: TerminalLogOptions) {
    this.opts = opts;
    const env = opts.env ?? process.env;
    this.live = liveProgressEnabled(opts.stream, env, opts.progress ?? true, opts.quiet ?? false);
    this.colors = picocolors.createColors(colorEnabled(opts.stream, env));
    // log-update (and the terminal modules it brings, ~50 ms to load) is loaded only for a live
    // line; until it has loaded the line is not drawn (the first draw waits for it). showCursor:
    // hiding it would make log-update install exit handlers of its own.
    if (this.live) {
      void import('log-update')
        .then((m) => {
          if (this.stopped) return;
          this.update = m.createLogUpdate(opts.stream, { showCursor: true });
          if (this.current) this.update(this.current);
        })
        .catch(() => {});
    }
  }

  /**
   * Write a line that stays (above the live line, if any). Lines carry text from pages (anchor
   * text, script errors, titles in messages): every control code in `text` is shown escaped
   * (see {@link printable}), never obeyed.
   */
  line(text: string): void {
    this.write(printable(text));
  }

  /** Write a line as it is: `text` must be ready for a terminal (see {@link recordLine}). */
  private write(text: string): void {
    // Written as is (log-update's persist() would wrap and clip it to the terminal): the live
    // line is erased first and drawn again below.
    if (this.update && this.current) this.update.clear();
    this.opts.stream.write(`${text}\n`);
    if (this.update && this.current) this.update(this.current);
  }

  /**
   * The line for one record, or nothing: nothing under `--quiet`; skipped URLs (robots, budget,
   * trap, duplicate) only under `--verbose`.
   */
  record(r: PageRecord, origin: string | null): void {
    if (this.opts.quiet) return;
    const quietSkip = r.skipped !== null && r.skipped !== 'non-html' && r.skipped !== 'scope';
    if (quietSkip && !this.opts.verbose) return;
    // The page's text in it is escaped by recordLine, which colours only its first word.
    this.write(recordLine(r, origin, { verbose: this.opts.verbose ?? false, colors: this.colors }));
  }

  /**
   * Start redrawing the live line (no-op without one).
   * @param stats - read at each redraw; may be asynchronous (a frontier count)
   * @param startedAt - crawl start (ms since epoch), for pages/s and elapsed time
   */
  start(stats: () => ProgressStats | Promise<ProgressStats>, startedAt: number): void {
    if (!this.live || this.timer || this.stopped) return;
    let busy = false;
    const draw = (): void => {
      if (busy) return;
      busy = true;
      Promise.resolve()
        .then(stats)
        .then((s) => {
          if (!this.timer) return;
          this.current = this.colors.dim(progressLine(s, Date.now() - startedAt));
          this.update?.(this.current);
        })
        .catch(() => {})
        .finally(() => {
          busy = false;
        });
    };
    this.timer = setInterval(draw, this.opts.intervalMs ?? 250);
    this.timer.unref();
    draw();
  }

  /** Stop and erase the live line (the summary follows as plain lines). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.current = '';
    if (this.update) {
      this.update.clear();
      this.update.done();
    }
  }
}
