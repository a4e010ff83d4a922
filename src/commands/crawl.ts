import { SpacrawlCommand } from '../cli/base-command.js';
import { Args } from '@oclif/core';
import { crawlFlags } from '../cli/flags.js';
import type { CrawlSummary } from '../model/summary.js';

/** `spacrawl crawl <url...>`: the main job. */
export default class Crawl extends SpacrawlCommand {
  static override summary = 'Crawl a site in real Chromium and report every page a person can reach';
  static override description = `Loads each page in headless Chromium, waits for it to settle (network idle and no DOM change, capped), reads the rendered links and title, clicks navigation without href, and follows in-scope links breadth-first. Writes a log line per page, a summary and the issue table to stderr; --out writes JSON Lines; --report and --output-dir write reports; --json prints the summary object on stdout.

Exit codes: 0 finished and no --fail-on rule matched; 1 a --fail-on rule matched (default: broken-link,server-error, i.e. a page with an error, a status >= 400 or a soft 404, or a 5xx) or no seed could be crawled; 2 bad usage or input (before crawling: nothing crawled), or an output that became unwritable during the crawl (records already written kept); 3 infrastructure failure (partial output flushed); 130/143 interrupted by SIGINT/SIGTERM (partial output flushed).`;
  static override examples = [
    '<%= config.bin %> crawl https://example.com/',
    '<%= config.bin %> crawl http://127.0.0.1:3000/ --concurrency 8 --out pages.jsonl --screenshots shots/',
    '<%= config.bin %> crawl https://example.com/ --max-depth 2 --json > summary.json',
  ];
  // The default synopsis lists every flag (over 20 lines): the common ones, then FLAGS below.
  static override usage = [
    '<%= command.id %> URL... [--out FILE] [--report FORMAT...] [--output-dir DIR] [--fail-on RULES] [FLAGS]',
    '<%= command.id %> --redis URL [--crawl-id ID] [FLAGS]',
  ];
  static override strict = false;
  static override enableJsonFlag = true;
  static override args = {
    url: Args.string({ description: 'seed URL(s): absolute http:// or https:// URLs (optional for a worker joining a --redis crawl)', required: false }),
  };
  static override flags = crawlFlags;

  async run(): Promise<CrawlSummary> {
    const parsed = await this.parse(Crawl);
    // The crawl's machinery (Playwright, the stores, the reporters) loads only now: `--help` and
    // a bad flag answer without it.
    const { crawlCommand } = await import('../cli/crawl-command.js');
    return crawlCommand(this, { flags: parsed.flags, argv: parsed.argv as string[] });
  }
}
