import fs from 'node:fs';
import path from 'node:path';
import { Args, type Interfaces } from '@oclif/core';
import { flagsOf, variant } from '../cli/flags.js';
import { CLI_OPTIONS as X } from '../cli/cli-options.js';
import { SpacrawlCommand } from '../cli/base-command.js';
import { classifyError } from '../cli/errors.js';
import { ExitCode } from '../cli/exit-codes.js';
import { DiffInputError } from '../diff/errors.js';
import type { DiffReportInput } from '../diff/formats/index.js';
import type { RecordSource } from '../diff/source.js';
import type { DiffReport } from '../diff/types.js';
import { checkWritableFile, describeFsError } from '../util/files.js';
import { parseBudget } from '../report/budget.js';

/** The same file on both sides (compared by real path), so a state file is opened once. */
function sameFile(a: string, b: string): boolean {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * An existing folder given by a flag, resolved.
 * @throws DiffInputError (`missing-input`) when it is not a folder
 */
function existingDir(flag: string, dir: string): string {
  const abs = path.resolve(dir);
  if (!fs.statSync(abs, { throwIfNoEntry: false })?.isDirectory()) throw new DiffInputError('missing-input', `${flag} ${dir}: no such folder`);
  return abs;
}

/** `spacrawl diff OLD NEW`: what changed between two crawls of one site. */
export default class Diff extends SpacrawlCommand {
  static override summary = 'Compare two crawls of one site: pages, statuses, titles, redirects, links, timings and findings';
  static override description = `Each side is the JSON Lines of --out, a --state file, or an --output-dir folder (its pages.jsonl); files of older spacrawl versions are read. Prints a summary to stderr (new findings first) and writes --report files. A finding's identity is its rule, its page and its target, never its message.

Exit codes: 0 no new finding of a --fail-on rule; 1 a new finding matches --fail-on; 2 bad input (a missing file, a file that is not a crawl, two crawls of different sites without --map-origin or --force, a bad flag); 3 a state file could not be read.`;
  static override examples = [
    '<%= config.bin %> diff before.jsonl after.jsonl',
    '<%= config.bin %> diff baseline/ spacrawl-report/ --report markdown:diff.md --report html:diff.html',
    '<%= config.bin %> diff before.db after.jsonl --fail-on broken-link,js-error --json',
  ];
  static override enableJsonFlag = true;
  static override args = {
    old: Args.string({ description: 'the earlier crawl (the baseline): a JSON Lines file, a state file or a report folder', required: true }),
    new: Args.string({ description: 'the later crawl, in any of the same forms', required: true }),
  };
  static override flags = flagsOf(
    variant(X.reports, { help: 'write a report: FORMAT[:PATH] with FORMAT markdown, json, html, junit; no PATH = stdout (repeatable; only one may use stdout, and none with --json)' }),
    X.diffFailOn,
    variant(X.force, { help: 'compare crawls of different sites (no seed origin in common)' }),
    variant(X.mapOrigin, { help: "read the earlier crawl's URLs on origin OLD as on origin NEW, e.g. https://example.com=http://127.0.0.1:4001 to compare a preview with production (repeatable; other origins are left as they are)" }),
    X.thresholdMs,
    X.thresholdPercent,
    variant(X.slowMs, { help: 'slow-page threshold of the audit of each crawl: ms a page waited for servers' }),
    variant(X.ignoreUrls, { help: 'findings for URLs matching this glob or /regex/ are reported as ignored and never fail (repeatable)' }),
    variant(X.budget, { help: 'budget findings for the pages of each crawl over these limits (crawls made with --vitals), e.g. lcp=2500,cls=0.1; compared only when both crawls measured vitals' }),
    X.visualThresholdPercent,
    X.oldScreenshots,
    X.newScreenshots,
    X.visualDir,
  );

  async run(): Promise<DiffReport> {
    const { args, flags } = await this.parse(Diff);
    try {
      return await this.compare(args, flags);
    } catch (err) {
      // compare() has closed both sides (and a state file's lock) by now.
      const { message, exit } = classifyError(err);
      this.fail(message, exit);
    }
  }

  /** Check the flags, open both sides, diff, print, write the reports, set the exit code. */
  private async compare(args: { old: string; new: string }, flags: Interfaces.InferredFlags<typeof Diff.flags>): Promise<DiffReport> {
    // The checks load only now, the sources once the flags passed, and the diff with its image
    // comparison and report formats once both sides opened: `--help`, a bad flag, a bad value and a
    // missing side answer without them.
    const [{ failingFindings, parseGateFailOn }, { parseDiffReportSpec }, { parseVisualThreshold }, { compilePattern }, { mapSourceOrigins, parseOriginMaps }] = await Promise.all([
      import('../diff/findings.js'),
      import('../diff/formats/spec.js'),
      import('../diff/visual-threshold.js'),
      import('../url/pattern.js'),
      import('../diff/map-origin.js'),
    ]);
    // The crawl's grammar: OLD is the baseline, so `new` and `new:RULE` are accepted; a plain
    // rule id counts its new findings, as before.
    const failOn = parseGateFailOn(flags['fail-on'], true).rules;
    const specs = (flags.report ?? []).map(parseDiffReportSpec);
    if (specs.filter((s) => s.path === null).length > 1) throw new DiffInputError('bad-option', 'only one report may go to stdout: give the others a PATH (FORMAT:PATH)');
    if (this.jsonEnabled() && specs.some((s) => s.path === null)) throw new DiffInputError('bad-option', '--json prints the diff on stdout: give every --report a PATH');
    for (const s of specs) {
      try {
        if (s.path !== null) checkWritableFile(s.path);
      } catch (err) {
        throw new DiffInputError('bad-option', `cannot write report ${s.path}: ${describeFsError(err)}`);
      }
    }
    const originMap = parseOriginMaps(flags['map-origin'] ?? []);
    const ignore = (flags['ignore-url'] ?? []).map(compilePattern);
    const budget = flags.budget === undefined ? null : parseBudget(flags.budget);
    const visualThreshold = parseVisualThreshold(flags['visual-threshold']);
    const firstFile = specs.find((x) => x.path !== null)?.path ?? null;
    const visual = {
      threshold: visualThreshold,
      diffDir: flags['visual-dir'] ? path.resolve(flags['visual-dir']) : firstFile ? path.join(path.dirname(firstFile), 'visual-diff') : null,
      oldDir: flags['old-screenshots'] ? existingDir('--old-screenshots', flags['old-screenshots']) : null,
      newDir: flags['new-screenshots'] ? existingDir('--new-screenshots', flags['new-screenshots']) : null,
    };
    const { openRecordSource, skippedLinesNote } = await import('../diff/source.js');
    const opened: RecordSource[] = [];
    try {
      const oldFile = await openRecordSource(args.old);
      opened.push(oldFile);
      const newer = sameFile(args.old, args.new) ? oldFile : await openRecordSource(args.new);
      if (newer !== oldFile) opened.push(newer);
      const [{ diffCrawls }, { writeDiffReport }, { diffReport }, { diffSummary }] = await Promise.all([
        import('../diff/diff.js'),
        import('../diff/formats/index.js'),
        import('../diff/formats/json.js'),
        import('../diff/terminal.js'),
      ]);
      // --map-origin: the earlier crawl's URLs read on the later crawl's origin.
      const older = mapSourceOrigins(oldFile, originMap);
      const diff = await diffCrawls(older, newer, {
        force: flags.force,
        thresholdMs: flags['threshold-ms'],
        thresholdRatio: flags['threshold-percent'] / 100,
        slowMs: flags.slow,
        ignore,
        budget,
        visual,
      });
      for (const s of opened) {
        const note = skippedLinesNote(s);
        if (note) this.io.stderr.write(`${note}\n`);
      }
      const input: DiffReportInput = { diff, failOn };
      this.io.stderr.write(`${diffSummary(diff, failOn)}\n`);
      for (const s of specs) writeDiffReport(s, input, this.io.stdout);
      this.setExitCode(failingFindings(diff, failOn).length ? ExitCode.Findings : ExitCode.Ok);
      return diffReport(input);
    } finally {
      for (const s of opened) await s.close().catch(() => {});
    }
  }
}
