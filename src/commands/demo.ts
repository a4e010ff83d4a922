import { SpacrawlCommand } from '../cli/base-command.js';
import { startDemoSite } from '../../fixtures/demo-site.js';
import { classifyError } from '../cli/errors.js';
import { runCrawl } from '../cli/run-crawl.js';
import { flagsOf } from '../cli/flags.js';
import { CLI_OPTIONS } from '../cli/cli-options.js';
import { CRAWL_OPTIONS } from '../crawl/option-table.js';
import type { CrawlSummary } from '../model/summary.js';

/** `spacrawl demo`: serve the bundled demo SPA on 127.0.0.1 and crawl it. */
export default class Demo extends SpacrawlCommand {
  static override summary = 'Serve the bundled demo single-page app on 127.0.0.1 and crawl it';
  static override description =
    'Starts the demo SPA from fixtures/ on a free loopback port, crawls it with the default settings and prints the same log and summary as `crawl`. Exits 0 whenever the crawl finishes, findings or not (the demo has a 404 on purpose).';
  static override enableJsonFlag = true;
  static override flags = flagsOf(CLI_OPTIONS.out, CRAWL_OPTIONS.screenshotsDir, CRAWL_OPTIONS.concurrency, CRAWL_OPTIONS.browserPath);

  async run(): Promise<CrawlSummary> {
    const { flags } = await this.parse(Demo);
    const site = await startDemoSite();
    this.io.stderr.write(`demo site on ${site.origin}/ (a client-rendered app: the HTML the server sends has no links)\n`);
    try {
      const { summary, exitCode } = await runCrawl(
        {
          seeds: [`${site.origin}/`],
          concurrency: flags.concurrency,
          screenshotsDir: flags.screenshots ?? null,
          browserPath: flags['browser-path'] ?? null,
        },
        this.io,
        { outFile: flags.out ?? null, neverFailOnFindings: true },
      );
      this.setExitCode(exitCode);
      return summary;
    } catch (err) {
      const { message, exit } = classifyError(err);
      this.fail(message, exit);
    } finally {
      await site.close();
    }
  }
}
