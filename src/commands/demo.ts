import path from 'node:path';
import { SpacrawlCommand } from '../cli/base-command.js';
import type { startDemoSite } from '../demo/site.js';
import { classifyError } from '../cli/errors.js';
import type { BaselineRun } from '../cli/run-crawl.js';
import { flagsOf, variant } from '../cli/flags.js';
import { CLI_OPTIONS, DEFAULT_FAIL_ON } from '../cli/cli-options.js';
import { CRAWL_OPTIONS } from '../crawl/option-table.js';
import { DEFAULT_VISUAL_THRESHOLD } from '../diff/defaults.js';
import type { CrawlSummary } from '../model/summary.js';
import { UsageError } from '../model/errors.js';

/**
 * The demo's port by default: a fixed one, so that two runs (the demo and `--changed`) crawl
 * the same origin and `spacrawl diff` can compare them. When it is in use, a free port is taken
 * and a line says so.
 */
export const DEMO_PORT = 7357;

/** The `--port` the user chose is taken (exit 2). */
class PortInUseError extends UsageError {
  readonly code = 'port-in-use';
  constructor(port: number) {
    super(`--port ${port}: the port is in use on 127.0.0.1 (give another, or 0 for any free port)`);
    this.name = 'PortInUseError';
  }
}

/** The running demo site. */
type DemoSite = Awaited<ReturnType<typeof startDemoSite>>;

/** Start the demo on `port`; on the default port, fall back to a free one when it is taken. */
async function startOn(port: number, explicit: boolean, changed: boolean, say: (line: string) => void): Promise<DemoSite> {
  const { startDemoSite } = await import('../demo/site.js');
  try {
    return await startDemoSite(port, 0, changed ? 'B' : 'A');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    if (explicit) throw new PortInUseError(port);
    say(`port ${port} is in use: the demo runs on a free port instead (another run of it is another site for spacrawl diff; give both the same --port)`);
    return startDemoSite(0, 0, changed ? 'B' : 'A');
  }
}

/** `spacrawl demo`: serve the bundled demo SPA on 127.0.0.1 and crawl it. */
export default class Demo extends SpacrawlCommand {
  static override summary = 'Serve the bundled demo single-page app on 127.0.0.1 and crawl it';
  static override description = `Starts the demo SPA bundled with spacrawl on 127.0.0.1:${DEMO_PORT} (a free port when that one is taken), crawls it with the default settings and prints the same log and summary as \`crawl\`. Exits 0 whenever the crawl finishes, findings or not (the demo has a 404 on purpose).

--changed serves version B of the demo, with known differences (a page removed and one added, a link broken, a title changed, a redirect target changed, a visible change): crawl the demo with --output-dir A, then --changed with --output-dir B, and compare them with \`spacrawl diff A B\` (or in one step with --changed --baseline A). The /live page's clock is masked in screenshots.`;
  static override examples = [
    '<%= config.bin %> demo',
    '<%= config.bin %> demo --output-dir demo-a && <%= config.bin %> demo --changed --output-dir demo-b && <%= config.bin %> diff demo-a demo-b',
  ];
  static override enableJsonFlag = true;
  static override flags = flagsOf(
    CLI_OPTIONS.out,
    CRAWL_OPTIONS.screenshotsDir,
    CRAWL_OPTIONS.concurrency,
    CRAWL_OPTIONS.browserPath,
    { flag: 'changed', kind: 'boolean', default: false, topic: 'output', help: 'serve version B of the demo: a page removed and one added, a link broken, a title and a redirect target changed, a visible change' },
    { flag: 'port', kind: 'integer', min: 0, max: 65535, default: DEMO_PORT, value: 'PORT', topic: 'output', help: 'port of the demo site on 127.0.0.1 (0 = any free port)' },
    variant(CLI_OPTIONS.outputDir, { help: 'write every report format and the screenshots into this folder (a side of spacrawl diff)' }),
    variant(CLI_OPTIONS.baseline, { help: 'compare with an earlier demo crawl (an --output-dir folder, --out file): prints the diff, writes diff.md, diff.html, diff.json into --output-dir' }),
  );

  async run(): Promise<CrawlSummary> {
    const { flags, raw } = await this.parse(Demo);
    const explicitPort = raw.some((r) => r.type === 'flag' && r.flag === 'port');
    const outputDir = flags['output-dir'] ? path.resolve(flags['output-dir']) : null;
    let site: DemoSite | null = null;
    try {
      // The checks (folders, the baseline) load only now, and the crawl's machinery (Playwright,
      // the reporters) once they passed: `--help`, a bad flag and a bad folder answer without it.
      const [{ checkWritableDir }, { openBaseline }] = await Promise.all([import('../cli/validate.js'), import('../diff/baseline-open.js')]);
      const shots = flags.screenshots ? path.resolve(flags.screenshots) : outputDir ? path.join(outputDir, 'screenshots') : null;
      if (shots) checkWritableDir(shots, flags.screenshots ? `screenshots to ${shots}` : `to --output-dir ${outputDir!}`);
      const out = flags.out ? path.resolve(flags.out) : outputDir ? path.join(outputDir, 'pages.jsonl') : null;
      const baseline: BaselineRun | undefined = flags.baseline
        ? {
            source: await openBaseline(flags.baseline, { outputDir, outFile: out, stateFile: null }),
            visualThreshold: DEFAULT_VISUAL_THRESHOLD,
            visualDir: outputDir ? path.join(outputDir, 'visual-diff') : null,
          }
        : undefined;
      const [{ DEMO_VISUAL_MASK }, { runCrawl }] = await Promise.all([import('../demo/site.js'), import('../cli/run-crawl.js')]);
      site = await startOn(flags.port, explicitPort, flags.changed, (line) => this.io.stderr.write(`${line}\n`));
      this.io.stderr.write(`demo site${flags.changed ? ' (changed: version B)' : ''} on ${site.origin}/ (a client-rendered app: the HTML the server sends has no links)\n`);
      const { summary, exitCode } = await runCrawl(
        {
          seeds: [`${site.origin}/`],
          concurrency: flags.concurrency,
          screenshotsDir: shots,
          visualMask: [...DEMO_VISUAL_MASK],
          browserPath: flags['browser-path'] ?? null,
        },
        this.io,
        {
          outFile: out,
          neverFailOnFindings: true,
          reporting: {
            reports: [],
            outputDir,
            failOn: DEFAULT_FAIL_ON,
            failOnWarnings: false,
            ignore: [],
            slowMs: CLI_OPTIONS.slowMs.default,
            json: flags.json ?? false,
            screenshotsDir: shots,
          },
          ...(baseline ? { baseline } : {}),
        },
      );
      this.setExitCode(exitCode);
      return summary;
    } catch (err) {
      const { message, exit } = classifyError(err);
      return this.fail(message, exit);
    } finally {
      await site?.close();
    }
  }
}
