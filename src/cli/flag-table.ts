/**
 * README's "Flags of `crawl`" table, made from the flags' declarations: one row per flag,
 * ordered by topic, then as declared. `scripts/readme-flags.mjs` writes it into README.md
 * between the `flags:start` and `flags:end` markers; `test/unit/options.test.ts` fails when
 * README differs.
 * @module
 */
import { defaultTextOf, TOPIC_ORDER, type OptionSpec } from '../crawl/option-spec.js';
import { declarationOf } from './flags.js';

/** First line of the generated section (a comment that says where it comes from). */
export const TABLE_START = '<!-- flags:start: generated from src/crawl/option-table.ts and src/cli/cli-options.ts by scripts/readme-flags.mjs; do not edit by hand -->';
/** Line after the generated section. */
export const TABLE_END = '<!-- flags:end -->';

/** What the table needs of a command: its flags, its first argument's description, and whether it has `--json`. */
export interface TableCommand {
  flags: Record<string, unknown>;
  args?: Record<string, { description?: string | undefined; required?: boolean | undefined }>;
  enableJsonFlag?: boolean;
}

/** Escape a table cell (`|` would end it). */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** The flag as README writes it: `-q, --quiet`, `--[no-]soft404`, `--scope host|subdomains|domain`, `--timeout MS`. */
function flagCell(spec: OptionSpec & { flag: string }): string {
  const name = spec.kind === 'boolean' ? `--${spec.allowNo ? '[no-]' : ''}${spec.flag}` : `--${spec.flag}`;
  const value = spec.kind === 'boolean' ? '' : ` ${spec.choices ? spec.choices.join('|') : (spec.value ?? 'VALUE')}`;
  return `\`${spec.char ? `-${spec.char}, ` : ''}${name}${value}\``;
}

/**
 * The markdown table of a command's flags (without the markers).
 * @throws Error when a flag was not made from a declaration
 */
export function renderFlagTable(cmd: TableCommand): string {
  const rows: string[] = ['| flag | default | meaning |', '|---|---|---|'];
  const arg = Object.entries(cmd.args ?? {})[0];
  if (arg) {
    const [name, a] = arg;
    rows.push(`| \`<${name}...>\` | (required, except for a worker joining a \`--redis\` crawl) | ${cell(a.description ?? '')} |`);
  }
  const specs = Object.entries(cmd.flags).map(([name, flag]) => {
    const spec = declarationOf(flag);
    if (!spec || spec.flag !== name) throw new Error(`flag --${name} was not made from a declaration`);
    return spec as OptionSpec & { flag: string };
  });
  const ordered = specs
    .map((spec, i) => ({ spec, i }))
    .sort((a, b) => TOPIC_ORDER.indexOf(a.spec.topic) - TOPIC_ORDER.indexOf(b.spec.topic) || a.i - b.i)
    .map((x) => x.spec);
  for (const spec of ordered) {
    rows.push(`| ${cell(flagCell(spec))} | ${cell(defaultTextOf(spec, 'readme'))} | ${cell(spec.help + (spec.doc ?? ''))} |`);
  }
  if (cmd.enableJsonFlag) rows.push("| `--json` | off | print the summary as one JSON object on stdout (oclif's own flag) |");
  return rows.join('\n');
}

/**
 * README's text with the generated section replaced by `table`.
 * @throws Error when the markers are missing
 */
export function replaceFlagTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README has no ${TABLE_START} … ${TABLE_END} section`);
  return `${readme.slice(0, start)}${TABLE_START}\n${table}\n${readme.slice(end)}`;
}
