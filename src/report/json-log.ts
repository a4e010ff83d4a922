/**
 * `--log-format json`: one JSON object per line on stderr for every log event, for log
 * collectors. Every line has `time` (ISO 8601), `level` (`info`, `warn`, `error`) and `event`
 * (`page`, `skip`, `retry`, `login`, `logged-out`, `relaunch`, `logout-blocked`, `notice`,
 * `summary`, `baseline`, `error`); the other fields depend on the event. Politeness waits are metrics, not
 * log lines.
 * @module
 */
import type { CrawlEvent } from '../crawl/events.js';
import type { PageRecord } from '../model/record.js';
import type { CrawlSummary } from '../model/summary.js';
import { outcomeOf } from './outcome.js';

/** One structured log line (before `JSON.stringify`). */
export type LogObject = { time: string; level: 'info' | 'warn' | 'error'; event: string } & Record<string, unknown>;

function pageFields(r: PageRecord): Record<string, unknown> {
  return {
    url: r.url,
    status: r.status,
    outcome: outcomeOf(r),
    title: r.title,
    finalUrl: r.finalUrl,
    depth: r.depth,
    attempts: r.attempts,
    ms: r.timings.total,
    links: r.links.length,
    error: r.error,
  };
}

/**
 * The log object of a crawl event, or `null` for events that are not log lines (`politeness-wait`).
 * @param at - when it happened
 */
export function logObjectOf(e: CrawlEvent, at: Date = new Date()): LogObject | null {
  const time = at.toISOString();
  switch (e.type) {
    case 'record': {
      const r = e.record;
      if (r.skipped) return { time, level: 'info', event: 'skip', url: r.url, reason: r.skipped, referrer: r.referrer, depth: r.depth };
      const bad = r.error !== null || (r.status !== null && r.status >= 400);
      return { time, level: bad ? 'warn' : 'info', event: 'page', ...pageFields(r) };
    }
    case 'retry':
      return { time, level: 'warn', event: 'retry', url: e.url, attempt: e.attempt, reason: e.reason, message: e.message };
    case 'login':
      return { time, level: e.ok ? 'info' : 'warn', event: 'login', relogin: e.relogin, ok: e.ok, message: e.message };
    case 'logged-out':
      return { time, level: 'info', event: 'logged-out', url: e.url, rule: e.rule };
    case 'relaunch':
      return { time, level: 'warn', event: 'relaunch' };
    case 'lease-recovered':
      return { time, level: 'info', event: 'lease-recovered', url: e.url };
    case 'logout-blocked':
      return { time, level: 'info', event: 'logout-blocked', url: e.url };
    case 'notice':
      return { time, level: 'info', event: 'notice', message: e.message };
    case 'politeness-wait':
      return null;
  }
}

/** The closing line: the summary (as `--json` prints it). */
export function summaryLogObject(summary: CrawlSummary, at: Date = new Date()): LogObject {
  return { time: at.toISOString(), level: 'info', event: 'summary', summary };
}

/** The verdict of `crawl --baseline`: the findings compared with the baseline's and the exit decision. */
export interface BaselineVerdict {
  /** The baseline as given (`--baseline`). */
  baseline: string;
  /** Findings of this crawl absent from the baseline (visual changes included). */
  new: number;
  /** Findings of the baseline absent from this crawl. */
  fixed: number;
  /** Findings in both. */
  unchanged: number;
  /** Findings of checks that ran in one crawl only, neither new nor fixed. */
  notCompared: number;
  /** Pages whose screenshot changed beyond the threshold (`null`: screenshots not compared). */
  visualChanges: number | null;
  /** The `--fail-on` rules, in the audit's terms (`new` is `warnings`). */
  failOn: readonly string[];
  /** New findings that match `--fail-on`. */
  failing: number;
  /** The exit code the crawl ends with. */
  exitCode: number;
}

/** The baseline comparison's line (`event: "baseline"`; `level: warn` when a new finding fails). */
export function baselineLogObject(v: BaselineVerdict, at: Date = new Date()): LogObject {
  return { time: at.toISOString(), level: v.failing ? 'warn' : 'info', event: 'baseline', ...v, failOn: [...v.failOn] };
}

/** A line for a failure that stops the command (`level: error`). */
export function errorLogObject(message: string, exitCode: number, at: Date = new Date()): LogObject {
  return { time: at.toISOString(), level: 'error', event: 'error', message, exitCode };
}

/** One line of JSON Lines (with the newline). */
export function logLine(o: LogObject): string {
  return `${JSON.stringify(o)}\n`;
}
