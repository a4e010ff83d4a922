import { SpacrawlCommand } from '../cli/base-command.js';
import path from 'node:path';
import fs from 'node:fs';
import { classifyError } from '../cli/errors.js';
import { flagsOf, variant } from '../cli/flags.js';
import { CLI_OPTIONS as X, DEFAULT_FAIL_ON } from '../cli/cli-options.js';
import { toLibraryUnit } from '../crawl/option-spec.js';
import type { Frontier } from '../store/frontier.js';
import type { ReportInput } from '../report/formats.js';
import type { CrawlSummary, EndReason } from '../report/summary.js';
import type { CrawlProgress } from '../store/policy.js';
import { crawlTime, humanDuration } from './status.js';
import type { RecordSource } from '../diff/source.js';

/** The crawl's time and end as `export` tells them: start, end, crawl time, end reason. */
export function crawlTimeLine(p: CrawlProgress): string {
  const end = p.running ? 'still running' : `ended ${p.endedAt ?? 'at an unknown time'} (${p.endReason ?? 'done'})`;
  return `crawl started ${p.startedAt ?? 'at an unknown time'}, ${end}; ${p.running ? `${humanDuration(p.elapsedMs)} of crawling` : crawlTime(p)}`;
}

/**
 * The crawl's time and end from the report.json beside `input`'s records, when `input` is an
 * --output-dir folder or its pages.jsonl (the same crawl wrote both); else `null`.
 */
async function recordsCrawl(input: string): Promise<{ elapsedMs: number; endReason: EndReason } | null> {
  const { readReportSummary, REPORT_FOLDER_RECORDS } = await import('../diff/source.js');
  const file = path.resolve(input);
  const dir = fs.statSync(file).isDirectory() ? file : path.basename(file) === REPORT_FOLDER_RECORDS ? path.dirname(file) : null;
  return dir === null ? null : (readReportSummary(dir)?.crawl ?? null);
}

/** `spacrawl export --state FILE --report FORMAT:PATH`: reports from a stored crawl, without crawling. */
export default class Export extends SpacrawlCommand {
  static override summary = 'Write reports from a stored crawl (--state, --redis or --records) without crawling';
  static override description =
    "Reads every record of a durable crawl (--state, refused while a crawl holds the file), of a shared crawl (--redis with --crawl-id: the records of every worker, also while they run) or of a crawl's files (--records: its --out JSON Lines or its --output-dir folder), finished or cut short, and writes the requested reports. The summary carries the crawl's time (runs summed) and end reason; stderr also says when it started and ended.";
  static override examples = [
    '<%= config.bin %> export --state crawl.db --report jsonl:pages.jsonl --report json:report.json',
    '<%= config.bin %> export --redis redis://127.0.0.1:6379 --crawl-id docs --report html:report.html',
    '<%= config.bin %> export --records pages.jsonl --report html:report.html --report junit:junit.xml',
  ];
  // --report is required, but not as an oclif `required` flag (see below): the usage says so.
  static override usage = '<%= command.id %> --report <value>... [--json] [--state <value>] [--records <value>] [--redis <value> --crawl-id <value>] [--redis-timeout <value>] [--budget <value>]';
  static override enableJsonFlag = true;
  static override flags = flagsOf(
    variant(X.state, { help: 'the SQLite state file of a crawl', exactlyOne: ['state', 'redis', 'records'] }),
    variant(X.records, { help: 'the JSON Lines file of a crawl (--out), or its --output-dir folder' }),
    variant(X.redis, { help: 'the Redis of a shared crawl (with --crawl-id)', dependsOn: ['crawl-id'] }),
    variant(X.crawlId, { help: 'with --redis: the name of the shared crawl' }),
    variant(X.redisRetryMs, { help: 'with --redis: seconds to keep trying to reach Redis before exiting 3' }),
    // Required, but checked in run(): a missing --state or --records file is said first.
    variant(X.reports, { help: '(required) FORMAT[:PATH] to write: jsonl, json, csv, html, junit, sitemap, markdown; no PATH = stdout (repeatable)' }),
    variant(X.budget, { help: "judge the stored pages' vitals against these limits (budget rule), e.g. lcp=2500,cls=0.1,tbt=300,bytes=2MB" }),
  );

  async run(): Promise<CrawlSummary> {
    const { flags } = await this.parse(Export);
    try {
      // The checks load only now, then only the store asked for, and the reporters once the store
      // is open: `--help`, a bad flag and a bad value answer without them.
      const [{ OptionsError }, { parseReportSpec }, { parseBudget }] = await Promise.all([
        import('../crawl/options-error.js'),
        import('../report/report-spec.js'),
        import('../report/budget.js'),
      ]);
      // The stored crawl first: a file that is not there is the first thing to say, before
      // anything about the reports asked for.
      if (flags.state !== undefined && !fs.existsSync(path.resolve(flags.state))) throw new OptionsError(`no state file at ${path.resolve(flags.state)}`);
      if (flags.records !== undefined && !fs.existsSync(path.resolve(flags.records))) throw new OptionsError(`${flags.records}: no such file or folder`);
      const reports = flags.report ?? [];
      if (reports.length === 0) throw new OptionsError('missing required flag --report');
      const specs = reports.map(parseReportSpec);
      const budget = flags.budget === undefined ? null : parseBudget(flags.budget);
      if (specs.filter((s) => s.path === null).length > 1) throw new OptionsError('only one report may go to stdout');
      if (this.jsonEnabled() && specs.some((s) => s.path === null)) throw new OptionsError('--json prints the summary on stdout: give every --report a PATH');
      let store: Pick<Frontier, 'records' | 'close'>;
      let source: string;
      let progress: CrawlProgress | null;
      let fromFiles: RecordSource | null = null;
      if (flags.redis) {
        const { checkRedisTarget } = await import('../cli/redis-target.js');
        checkRedisTarget(flags.redis, flags['crawl-id']!);
        const { RedisFrontier } = await import('../store/redis/frontier.js');
        const shared = await RedisFrontier.open(flags.redis, { crawlId: flags['crawl-id']!, crawlKey: null, heartbeat: false, retryMs: toLibraryUnit(X.redisRetryMs, flags['redis-timeout']) });
        store = shared;
        progress = await shared.status().catch(async (err: unknown) => {
          await shared.close();
          throw err;
        });
        source = `crawl ${flags['crawl-id']!}`;
      } else if (flags.records !== undefined) {
        const { openRecordSource } = await import('../diff/source.js');
        const records = await openRecordSource(flags.records);
        store = records;
        fromFiles = records;
        progress = null;
        source = flags.records;
      } else {
        const file = path.resolve(flags.state!);
        const [{ readStateFile }, { SqliteFrontier }] = await Promise.all([import('../store/sqlite/reader.js'), import('../store/sqlite/frontier.js')]);
        // Read before opening: the reader sees the file as the last run left it.
        progress = readStateFile(file);
        store = SqliteFrontier.open(file, { crawlKey: { seeds: [], scope: '' }, keepKey: true });
        source = file;
      }
      const [{ RecordsFile }, { writeReport }, { SummaryCounter }, { audit }, { storedEndReason }, { skippedLinesNote }] = await Promise.all([
        import('../cli/records-file.js'),
        import('../report/formats.js'),
        import('../report/summary.js'),
        import('../report/audit.js'),
        import('../store/policy.js'),
        import('../diff/source.js'),
      ]);
      // A shared crawl may be exported while its workers run: its end reason is then what it
      // would be if they stopped now.
      // Records alone do not say how long the crawl took or how it ended: an --output-dir folder's
      // report.json does; a lone JSON Lines file gives 0 ms and 'done', and stderr says so.
      const told = progress === null ? await recordsCrawl(flags.records!) : null;
      const elapsedMs = progress?.elapsedMs ?? told?.elapsedMs ?? 0;
      const endReason: EndReason = progress ? (progress.endReason ?? storedEndReason(null, progress.queued + progress.inFlight)) : (told?.endReason ?? 'done');
      // The store's records are copied to a spool file as they are read, then read back from it
      // by the audit and each report: the process never holds them all.
      const spooled = RecordsFile.open(null, specs);
      try {
        const counter = new SummaryCounter(spooled.source);
        let n = 0;
        try {
          for await (const r of store.records()) {
            spooled.spool!.write(r);
            counter.add(r);
            n++;
          }
        } finally {
          await store.close();
          spooled.spool!.close();
        }
        const summary = counter.snapshot(elapsedMs, endReason);
        const input: ReportInput = { records: spooled.source, summary, audit: audit(spooled.source, { budget }), failOn: DEFAULT_FAIL_ON, screenshotsDir: null, budget };
        for (const s of specs) writeReport(s, input, this.io.stdout);
        const timeLine = progress
          ? crawlTimeLine(progress)
          : told
            ? `crawl time ${humanDuration(told.elapsedMs)}, ended (${told.endReason}), from its report.json`
            : 'crawl time and end unknown (not in a JSON Lines file): the summary says 0 s and done';
        const skipped = fromFiles ? skippedLinesNote(fromFiles) : null;
        this.io.stderr.write(`${skipped ? `${skipped}\n` : ''}exported ${n} records (${summary.pages} pages) from ${source}\n${timeLine}\n`);
        return summary;
      } finally {
        spooled.remove();
      }
    } catch (err) {
      const { message, exit } = classifyError(err);
      this.fail(message, exit);
    }
  }
}
