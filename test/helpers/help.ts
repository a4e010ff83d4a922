import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Config, Help, type Command } from '@oclif/core';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
/** oclif's own command → help-input conversion (what its manifest holds); internal, so reached by path (oclif is pinned). */
const { cacheCommand } = require(path.join(REPO, 'node_modules/@oclif/core/lib/util/cache-command.js')) as {
  cacheCommand: (cmd: Command.Class, plugin: undefined) => Promise<Command.Loadable>;
};

/** `--help` printed into a string instead of stdout. */
class CapturedHelp extends Help {
  readonly lines: string[] = [];
  protected override log(...args: string[]): void {
    this.lines.push(args.join(' '));
  }
}

let config: Promise<Config> | null = null;

/**
 * The `--help` text of a command class, exactly as `spacrawl <id> --help` prints it with
 * `OCLIF_COLUMNS=<width>` and no colours, rendered in-process from the sources (no build):
 * the package's oclif config without its command table, and oclif's own help classes.
 */
export async function helpText(id: string, cls: Command.Class, width = 100): Promise<string> {
  config ??= (async () => {
    const pjson = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { oclif: Record<string, unknown> } & Record<string, unknown>;
    const { commands: _commands, ...oclif } = pjson.oclif;
    return Config.load({ root: REPO, pjson: { ...pjson, oclif } as never });
  })();
  const loadable = await cacheCommand(Object.assign(cls, { id }), undefined);
  const help = new CapturedHelp(await config, { stripAnsi: true, maxWidth: width });
  await help.showCommandHelp(loadable);
  return `${help.lines.join('\n')}\n`;
}
