import { SpacrawlCommand } from '../cli/base-command.js';
import { Args } from '@oclif/core';
import type { HttpClient } from '../net/http-client.js';
import { ExitCode } from '../cli/exit-codes.js';
import { flagsOf, variant } from '../cli/flags.js';
import { CLI_OPTIONS as X } from '../cli/cli-options.js';
import { CRAWL_OPTIONS as C } from '../crawl/option-table.js';
import type { RobotsExplanation } from '../url/robots.js';

/** `spacrawl robots <url>`: what robots.txt says about one URL for our agent. */
export default class Robots extends SpacrawlCommand {
  static override summary = 'Show whether robots.txt allows a URL for spacrawl, and which rule decided';
  static override description =
    'Fetches the origin\'s robots.txt the way a crawl does (RFC 9309: 4xx but 429 allows all, 5xx, 429 and network errors disallow all, redirects followed up to 5 hops, 500 KiB parsed) and prints: allowed or not, the deciding rule and its line number, the Crawl-delay, and the Sitemap lines.';
  static override examples = ['<%= config.bin %> robots https://example.com/private/page', '<%= config.bin %> robots https://example.com/ --json'];
  static override enableJsonFlag = true;
  static override args = { url: Args.string({ description: 'absolute http(s) URL to check', required: true }) };
  static override flags = flagsOf(
    variant(C.robotsAgent, { help: 'product token matched against User-agent groups' }),
    X.robotsUserAgent,
    variant(C.proxy, { help: 'fetch through this HTTP or SOCKS proxy' }),
    C.ignoreHttpsErrors,
  );

  async run(): Promise<RobotsExplanation> {
    const { args, flags } = await this.parse(Robots);
    // Loaded only now: `--help` and a bad flag answer without them.
    const [{ checkSeed }, { HttpClient }, { RobotsCache }] = await Promise.all([import('../cli/validate.js'), import('../net/http-client.js'), import('../url/robots.js')]);
    let url: string;
    try {
      url = checkSeed(args.url, 'URL');
    } catch (err) {
      this.fail(err instanceof Error ? err.message : String(err), ExitCode.Usage);
    }
    let request: HttpClient;
    try {
      request = new HttpClient({ userAgent: flags['user-agent'], proxy: flags.proxy ?? null, ignoreHttpsErrors: flags['ignore-https-errors'] });
    } catch (err) {
      this.fail(`--proxy must be a proxy server URL such as http://proxy:3128 or socks5://127.0.0.1:1080 (${err instanceof Error ? err.message : String(err)})`, ExitCode.Usage);
    }
    const x = await new RobotsCache({ request, agent: flags['robots-agent'] }).explain(url);
    const o = x.outcome;
    const lines = [
      `${x.allowed ? 'allowed' : 'disallowed'}: ${url} for agent "${x.agent}"`,
      x.rule
        ? `  rule: line ${x.line}: ${x.rule}`
        : o.kind === 'parsed'
          ? '  rule: none matched (allowed by default)'
          : `  rule: robots.txt ${o.kind === 'allow-all' ? 'absent' : 'unusable'} (${o.detail}): ${o.kind === 'allow-all' ? 'everything allowed (RFC 9309 §2.3.1.3)' : 'everything disallowed (RFC 9309 §2.3.1.4)'}`,
      `  robots.txt: ${x.robotsUrl} (${o.detail})`,
      `  crawl-delay: ${o.crawlDelayMs === null ? 'none' : `${o.crawlDelayMs / 1000} s`}`,
      `  sitemaps: ${o.sitemaps.length ? o.sitemaps.join(', ') : 'none'}`,
    ];
    if (!this.jsonEnabled()) this.io.stdout.write(`${lines.join('\n')}\n`);
    return x;
  }
}
