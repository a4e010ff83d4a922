import { describe, expect, it } from 'vitest';
import { FAIL_ON_WORDS } from '../../src/commands/rules.js';
import { RULES } from '../../src/report/audit.js';
import { runInProcess } from '../helpers/cli.js';

const WORDS = ': expected rule ids (spacrawl rules lists them), warnings, none, new or new:RULE';

describe('spacrawl rules', () => {
  it('lists every rule, errors first, one line each, then the other words of --fail-on; exit 0', async () => {
    const r = await runInProcess(['rules']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.split('\n');
    const n = Object.keys(RULES).length;
    expect(lines.slice(n)).toEqual(['', ...FAIL_ON_WORDS, '']);
    expect(lines[0]).toBe(`broken-link          error    ${RULES['broken-link'].description}`);
    expect(lines.slice(0, n).map((l) => l.split(/\s+/)[0]).sort()).toEqual(Object.keys(RULES).sort());
    expect(FAIL_ON_WORDS.join(' ')).toContain('new:RULE');
  });

  it('--severity error lists the error-level rules only; --json gives them as objects', async () => {
    const errors = Object.entries(RULES).filter(([, v]) => v.severity === 'error').map(([k]) => k);
    const r = await runInProcess(['rules', '--severity', 'error', '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string; severity: string }[]).map((x) => [x.id, x.severity])).toEqual(errors.map((id) => [id, 'error']));
  });
});

describe('a bad --fail-on is one short line that points to spacrawl rules', () => {
  it.each([
    [['crawl', 'http://127.0.0.1:9/', '--fail-on', 'broken-links'], 'unknown --fail-on rule "broken-links" (did you mean "broken-link"?)'],
    [['crawl', 'http://127.0.0.1:9/', '--fail-on', 'new:zzzz', '--baseline', 'x.jsonl'], 'unknown --fail-on rule "zzzz"'],
    [['diff', 'a.jsonl', 'b.jsonl', '--fail-on', 'x'.repeat(300)], `unknown --fail-on rule "${'x'.repeat(40)}…"`],
    // Empty (an unset variable in a CI script) is a mistake, not "never fail" (that is `none`).
    [['crawl', 'http://127.0.0.1:9/', '--fail-on', ''], '--fail-on names no rule'],
    [['crawl', 'http://127.0.0.1:9/', '--fail-on', ' , '], '--fail-on names no rule'],
    [['diff', 'a.jsonl', 'b.jsonl', '--fail-on', ''], '--fail-on names no rule'],
  ])('%j', async (args, start) => {
    const r = await runInProcess(args);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: '', stderr: `spacrawl: ${start}${WORDS}\n` });
    expect(r.stderr.length).toBeLessThan(200);
  });
});
