/**
 * `docs/flags.md`, made from the flags' declarations, as `--help` is: one section per command,
 * one table row per flag, ordered by topic, then as declared. `scripts/docs-flags.mjs`
 * (`npm run docs:flags`) writes the file; `test/unit/docs-flags.test.ts` fails when it differs.
 * A flag added to a command's `flags` (made with `flagsOf`) shows up here with no other change.
 * @module
 */
import { defaultTextOf, TOPIC_ORDER, type OptionSpec, type OptionTopic } from '../crawl/option-spec.js';
import { declarationOf } from './flags.js';

/** The file the flags are written to, relative to the repository. */
export const FLAGS_DOC = 'docs/flags.md';

/** What the table needs of a command: its flags, its arguments, and whether it has `--json`. */
export interface TableCommand {
  flags: Record<string, unknown>;
  args?: Record<string, { description?: string | undefined; required?: boolean | undefined }>;
  enableJsonFlag?: boolean;
  strict?: boolean;
  summary?: string | undefined;
}

/** Section titles of the topics, for commands long enough to be split by topic. */
const TOPIC_TITLES: Record<OptionTopic, string> = {
  budget: 'Budget',
  urls: 'URLs and scope',
  robots: 'robots.txt',
  discovery: 'Discovery: clicks and scrolling',
  pages: 'Pages',
  politeness: 'Politeness and retries',
  checks: 'Checks',
  output: 'Output',
  audit: 'Audit and CI',
  store: 'Resume and shared crawls',
  browser: 'Browser',
  terminal: 'Terminal and metrics',
};

/** A command with more flags than this gets one table per topic. */
const SPLIT_ABOVE = 20;

/** What `--json` prints, by command; other commands get {@link JSON_DEFAULT}. */
const JSON_OUTPUT: Record<string, string> = {
  crawl: 'the summary',
  demo: 'the summary',
  export: 'the summary',
  diff: 'the diff (the `json` report)',
  login: 'the state file written, with its cookie and origin counts',
  robots: "the verdict: allowed or not, the deciding rule and its line, the robots.txt URL",
  status: "where the crawl stands (the same fields as the text)",
};
const JSON_DEFAULT = "the command's result";

/** Escape a table cell (`|` would end it). */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** The flag as the docs write it: `-q, --quiet`, `--[no-]soft404`, `--scope host|subdomains|domain`, `--timeout MS`. */
function flagCell(spec: OptionSpec & { flag: string }): string {
  const name = spec.kind === 'boolean' ? `--${spec.allowNo ? '[no-]' : ''}${spec.flag}` : `--${spec.flag}`;
  const value = spec.kind === 'boolean' ? '' : ` ${spec.choices ? spec.choices.join('|') : (spec.value ?? 'VALUE')}`;
  return `\`${spec.char ? `-${spec.char}, ` : ''}${name}${value}\``;
}

/** The argument as the docs write it: `<url>`, `<url...>` when the command takes many (`strict: false`). */
function argName(name: string, cmd: TableCommand): string {
  return cmd.strict === false ? `<${name}...>` : `<${name}>`;
}

/**
 * The declarations of a command's flags, ordered by topic, then as declared.
 * @throws Error when a flag was not made from a declaration
 */
function orderedSpecs(cmd: TableCommand): (OptionSpec & { flag: string })[] {
  const specs = Object.entries(cmd.flags).map(([name, flag]) => {
    const spec = declarationOf(flag);
    if (!spec || spec.flag !== name) throw new Error(`flag --${name} was not made from a declaration`);
    return spec as OptionSpec & { flag: string };
  });
  return specs
    .map((spec, i) => ({ spec, i }))
    .sort((a, b) => TOPIC_ORDER.indexOf(a.spec.topic) - TOPIC_ORDER.indexOf(b.spec.topic) || a.i - b.i)
    .map((x) => x.spec);
}

const HEADER = ['| flag | default | meaning |', '|---|---|---|'];

/** One flag's row. */
function flagRow(spec: OptionSpec & { flag: string }): string {
  return `| ${cell(flagCell(spec))} | ${cell(defaultTextOf(spec, 'readme'))} | ${cell(spec.help + (spec.doc ?? ''))} |`;
}

/** The rows of a command's arguments: in the flag table (`(required)` in the default column), or in a table of their own (`yes`/`no`). */
function argRows(cmd: TableCommand, own = false): string[] {
  const said = (required: boolean | undefined): string => (own ? (required ? 'yes' : 'no') : required ? '(required)' : '(optional)');
  return Object.entries(cmd.args ?? {}).map(([name, a]) => `| \`${argName(name, cmd)}\` | ${said(a.required)} | ${cell(a.description ?? '')} |`);
}

/** The `--json` row (oclif's own flag). */
function jsonRow(id: string | undefined): string {
  return `| \`--json\` | off | print ${id !== undefined ? (JSON_OUTPUT[id] ?? JSON_DEFAULT) : JSON_DEFAULT} as one JSON object on stdout (oclif's own flag) |`;
}

/**
 * The markdown table of a command's flags: its arguments, every flag by topic, then `--json`.
 * @throws Error when a flag was not made from a declaration
 */
export function renderFlagTable(cmd: TableCommand, id?: string): string {
  const rows = [...HEADER, ...argRows(cmd), ...orderedSpecs(cmd).map(flagRow)];
  if (cmd.enableJsonFlag) rows.push(jsonRow(id));
  return rows.join('\n');
}

/** A command's section: title, what it does, usage, and its table (one per topic for a long command). */
function commandSection(id: string, cmd: TableCommand): string {
  const args = Object.entries(cmd.args ?? {}).map(([name, a]) => (a.required ? argName(name, cmd) : `[${argName(name, cmd)}]`));
  const out = [`## spacrawl ${id}`, ''];
  if (cmd.summary) out.push(`${cmd.summary}.`, '');
  out.push('```', ['spacrawl', id, ...args, '[flags]'].join(' '), '```', '');
  const specs = orderedSpecs(cmd);
  if (specs.length <= SPLIT_ABOVE) {
    out.push(renderFlagTable(cmd, id));
    return out.join('\n');
  }
  const arg = argRows(cmd, true);
  if (arg.length > 0) out.push('### Arguments', '', '| argument | required | meaning |', '|---|---|---|', ...arg, '');
  for (const topic of TOPIC_ORDER) {
    const here = specs.filter((s) => s.topic === topic);
    if (here.length === 0) continue;
    const rows = here.map(flagRow);
    if (topic === 'output' && cmd.enableJsonFlag) rows.push(jsonRow(id));
    out.push(`### ${TOPIC_TITLES[topic]}`, '', ...HEADER, ...rows, '');
  }
  if (cmd.enableJsonFlag && !specs.some((s) => s.topic === 'output')) out.push('### Output', '', ...HEADER, jsonRow(id), '');
  return out.join('\n').trimEnd();
}

/**
 * The whole of `docs/flags.md`: every flag of every command, in the order given.
 * @throws Error when a flag was not made from a declaration
 */
export function renderFlagsDoc(commands: Record<string, TableCommand>): string {
  const ids = Object.keys(commands);
  const lines = [
    '<!-- Generated from src/crawl/option-table.ts and src/cli/cli-options.ts by scripts/docs-flags.mjs (npm run docs:flags); do not edit by hand. -->',
    '',
    '# Flags',
    '',
    'Every flag of every command. Each option is declared once (`src/crawl/option-table.ts` for the crawl, `src/cli/cli-options.ts` for the commands\' own); its flag, its `--help` line, its default, the library\'s default and this page all come from there. `spacrawl <command> --help` prints the same flags.',
    '',
    '`spacrawl crawl` also reads flag values from `./spacrawl.config.json` when present, or from the file of `--config`: each key is a flag name, each value in the flag\'s unit (`{"max-depth": 3, "exclude": ["/admin/"]}`); flags on the command line win. A duration is at most what a timer can hold: 2147483647 ms, or 2147483 s for a flag in seconds (about 24.8 days).',
    '',
    ...ids.map((id) => `- [\`spacrawl ${id}\`](#spacrawl-${id})${commands[id]!.summary ? `: ${commands[id]!.summary!.charAt(0).toLowerCase()}${commands[id]!.summary!.slice(1)}` : ''}`),
    '',
  ];
  return `${lines.join('\n')}\n${ids.map((id) => commandSection(id, commands[id]!)).join('\n\n')}\n`;
}
