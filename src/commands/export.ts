import { SpacrawlCommand } from '../cli/base-command.js';
import path from 'node:path';
import fs from 'node:fs';
import { Flags } from '@oclif/core';
import { classifyError, failAndExit } from '../cli/errors.js';
import { ExitCode } from '../cli/exit-codes.js';
import { SqliteFrontier } from '../crawl/sqlite-frontier.js';
import { OptionsError } from '../crawl/options.js';
import { parseReportSpec, writeReport } from '../report/formats.js';
import type { PageRecord } from '../report/record.js';
import { SummaryCounter, type CrawlSummary } from '../report/summary.js';
import { audit } from '../report/audit.js';

/** `spacrawl export --state FILE --report FORMAT:PATH`: reports from a stored crawl, without crawling. */
export default class Export extends SpacrawlCommand {
  static override summary = 'Write reports from a stored crawl (--state) without crawling';
  static override description =
    'Reads every record of a durable crawl, finished or cut short, and writes the requested reports. Refused while a crawl holds the state file.';
  static override examples = ['<%= config.bin %> export --state crawl.db --report jsonl:pages.jsonl --report json:report.json'];
  static override enableJsonFlag = true;
  static override flags = {
    state: Flags.string({ description: 'the SQLite state file of a crawl', required: true }),
    report: Flags.string({ description: 'FORMAT[:PATH] to write (jsonl, json); no PATH = stdout (repeatable)', multiple: true, multipleNonGreedy: true, required: true }),
  };

  async run(): Promise<CrawlSummary> {
    const { flags } = await this.parse(Export);
    try {
      const specs = flags.report.map(parseReportSpec);
      if (specs.filter((s) => s.path === null).length > 1) throw new OptionsError('only one report may go to stdout');
      if (this.jsonEnabled() && specs.some((s) => s.path === null)) throw new OptionsError('--json prints the summary on stdout: give every --report a PATH');
      const file = path.resolve(flags.state);
      if (!fs.existsSync(file)) throw new OptionsError(`no state file at ${file}`);
      const store = SqliteFrontier.open(file, { crawlKey: { seeds: [], scope: '' }, keepKey: true });
      const records: PageRecord[] = [];
      const counter = new SummaryCounter();
      try {
        for await (const r of store.records()) {
          records.push(r);
          counter.add(r);
        }
      } finally {
        await store.close();
      }
      const summary = counter.snapshot(0, 'done');
      const input = { records, summary, audit: audit(records), failOn: ['broken-link', 'server-error'], screenshotsDir: null };
      for (const s of specs) writeReport(s, input);
      process.stderr.write(`exported ${records.length} records (${summary.pages} pages) from ${file}\n`);
      return summary;
    } catch (err) {
      const { message, exit } = classifyError(err);
      failAndExit(message, exit);
    }
  }
}
