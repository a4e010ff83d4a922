import fs from 'node:fs';
import path from 'node:path';
import { Args } from '@oclif/core';
import { SpacrawlCommand } from '../cli/base-command.js';
import { CLI_OPTIONS as X } from '../cli/cli-options.js';
import { classifyError } from '../cli/errors.js';
import { flagsOf, variant } from '../cli/flags.js';
import { CRAWL_OPTIONS as C } from '../crawl/option-table.js';
import type { CrawlOptions } from '../crawl/options.js';

/** What `spacrawl login --json` prints (never a cookie's value). */
export interface LoginOutput {
  stateFile: string;
  cookies: number;
  origins: number;
}

/** `spacrawl login URL --login FILE --save-state auth.json`: log in once, keep the session for crawls. */
export default class Login extends SpacrawlCommand {
  static override summary = 'Run only the login of a crawl and save its storage state for --storage-state';
  static override description =
    'Runs the --login recipe (an ES module, or a Chrome DevTools Recorder JSON export) in headless Chromium with the same browser settings a crawl uses, judges whether it worked as a crawl does (up to 3 attempts), and writes the session\'s cookies and local storage as a Playwright storage state file, so that a CI job can log in once and hand the state to several crawls or workers (crawl --storage-state FILE). Secrets come from the environment and are never written: values holding one are left out of the state file. Exit codes: 0 logged in and saved; 2 bad usage (missing recipe, environment variable or flag); 3 the login failed 3 times in a row, or the browser failed.';
  static override examples = [
    'APP_USER=alice APP_PASSWORD=… <%= config.bin %> login https://app.example.com/ --login login.mjs --save-state auth.json',
    '<%= config.bin %> crawl https://app.example.com/ --storage-state auth.json',
  ];
  static override enableJsonFlag = true;
  static override args = { url: Args.string({ description: "the site's URL: the recipe's baseUrl", required: true }) };
  static override flags = flagsOf(
    variant(C.login, { help: 'the login recipe: an ES module (default export async ({ page, context, env, baseUrl }) => {}) or a Chrome DevTools Recorder JSON export', required: true }),
    variant(X.saveState, { help: 'write the storage state (cookies, local storage) to this file (mode 600)', required: true }),
    variant(C.loggedOut, { help: 'the login failed when the page it ended on matches url:REGEX or selector:CSS (repeatable; default: it still shows a password field)' }),
    variant(C.storageState, { help: 'start from this storage state (e.g. a consent cookie)' }),
    C.userAgent,
    C.browserPath,
    C.proxy,
    C.ignoreHttpsErrors,
    C.headers,
    C.viewport,
    C.device,
    C.locale,
  );

  async run(): Promise<LoginOutput> {
    const { args, flags } = await this.parse(Login);
    try {
      // The checks load only now, and the browser (Playwright) once they passed: `--help`, a bad
      // flag and a bad value answer without it.
      const [{ checkDevice, checkReadable, checkSeed, parseHeaders, parseViewport }, { OptionsError, resolveOptions }] = await Promise.all([
        import('../cli/validate.js'),
        import('../crawl/options.js'),
      ]);
      const url = checkSeed(args.url, 'URL');
      const file = path.resolve(flags['save-state']);
      const dir = path.dirname(file);
      if (!fs.existsSync(dir)) throw new OptionsError(`--save-state ${file}: the folder ${dir} does not exist`);
      const options: CrawlOptions = {
        seeds: [url],
        login: checkReadable('--login', path.resolve(flags.login)),
        loggedOut: flags['logged-out'] ?? [],
        storageState: flags['storage-state'] ? checkReadable('--storage-state', path.resolve(flags['storage-state'])) : null,
        userAgent: flags['user-agent'] ?? null,
        browserPath: flags['browser-path'] ?? null,
        proxy: flags.proxy ?? null,
        ignoreHttpsErrors: flags['ignore-https-errors'],
        headers: parseHeaders(flags.header ?? []),
        viewport: flags.viewport ? parseViewport(flags.viewport) : null,
        device: flags.device ? checkDevice(flags.device) : null,
        locale: flags.locale ?? null,
        loginEnv: this.io.env,
        onNotice: (m) => this.io.stderr.write(`note: ${m}\n`),
      };
      resolveOptions(options); // loginOnly checks them again, after loading the browser
      const { loginOnly } = await import('../crawl/login-only.js');
      const { state } = await loginOnly(options);
      fs.writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
      fs.chmodSync(file, 0o600);
      const out: LoginOutput = { stateFile: file, cookies: state.cookies.length, origins: state.origins.length };
      this.io.stderr.write(`logged in: ${out.cookies} cookie${out.cookies === 1 ? '' : 's'}, local storage of ${out.origins} origin${out.origins === 1 ? '' : 's'} saved to ${file}\n`);
      return out;
    } catch (err) {
      const { message, exit } = classifyError(err);
      this.fail(message, exit);
    }
  }
}
