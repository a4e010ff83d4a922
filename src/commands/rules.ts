import { flagsOf } from '../cli/flags.js';
import { CLI_OPTIONS as X } from '../cli/cli-options.js';
import { SpacrawlCommand } from '../cli/base-command.js';
import { RULES, type RuleId, type Severity } from '../report/audit.js';

/** One audit rule as `spacrawl rules --json` lists it. */
export interface RuleListing {
  id: RuleId;
  severity: Severity;
  description: string;
}

/** What `--fail-on` takes besides rule ids, one line each (the end of `spacrawl rules`). */
export const FAIL_ON_WORDS = [
  '--fail-on also takes: warnings (every error- and warning-level rule), none (never fail),',
  'and with --baseline (always in diff): new (every new error- or warning-level finding), new:RULE (new findings of RULE)',
];

/**
 * The rules, most severe first, then as declared in `RULES`.
 * @param severity - only the rules of this severity; every rule when `null`
 */
export function ruleListing(severity: Severity | null = null): RuleListing[] {
  const order: Severity[] = ['error', 'warning', 'notice'];
  return (Object.entries(RULES) as [RuleId, { severity: Severity; description: string }][])
    .map(([id, r]) => ({ id, severity: r.severity, description: r.description }))
    .filter((r) => severity === null || r.severity === severity)
    .sort((a, b) => order.indexOf(a.severity) - order.indexOf(b.severity));
}

/** `spacrawl rules`: the audit rules `--fail-on` names, with their severity and meaning. */
export default class Rules extends SpacrawlCommand {
  static override summary = 'List the audit rules (the ids --fail-on takes and findings carry), with their severity and meaning';
  static override description = 'One line per rule: its id, its severity (error, warning, notice) and what it finds; then the other words --fail-on takes (warnings, none, new, new:RULE).';
  static override examples = ['<%= config.bin %> rules', '<%= config.bin %> rules --severity error', '<%= config.bin %> rules --json'];
  static override enableJsonFlag = true;
  static override flags = flagsOf(X.severity);

  async run(): Promise<RuleListing[]> {
    const { flags } = await this.parse(Rules);
    const list = ruleListing((flags.severity as Severity | undefined) ?? null);
    if (!this.jsonEnabled()) {
      const width = Math.max(...list.map((r) => r.id.length));
      const lines = list.map((r) => `${r.id.padEnd(width)}  ${r.severity.padEnd(7)}  ${r.description}`);
      this.io.stdout.write(`${[...lines, '', ...FAIL_ON_WORDS].join('\n')}\n`);
    }
    return list;
  }
}
