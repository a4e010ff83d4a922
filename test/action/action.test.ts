import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDiffMarkdown } from '../../src/diff/formats/markdown.js';
import type { CrawlDiff, Finding } from '../../src/diff/types.js';
import { assertBuilt, REPO } from '../helpers/cli.js';
import { sampleDiff } from '../diff/sample-diff.js';

const MARKER = '<!-- spacrawl-gate -->';
let tmp: string;

beforeAll(() => {
  assertBuilt(); // the action runs dist/: built beforehand (npm test does), never here
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-action-'));
}, 180_000);
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Run action/comment.mjs under a fake GitHub environment (dry run: GitHub is never called). */
function runComment(reportDir: string, extra: Record<string, string> = {}): { out: string; outputs: string; summary: string; body: string } {
  const dir = fs.mkdtempSync(path.join(tmp, 'run-'));
  const event = path.join(dir, 'event.json');
  fs.writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
  const env = {
    PATH: process.env.PATH ?? '',
    GITHUB_OUTPUT: path.join(dir, 'output'),
    GITHUB_STEP_SUMMARY: path.join(dir, 'summary'),
    GITHUB_EVENT_PATH: event,
    GITHUB_REPOSITORY: 'acme/site',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '42',
    RUNNER_TEMP: dir,
    SPACRAWL_DIST: path.join(REPO, 'dist'),
    SPACRAWL_REPORT_DIR: reportDir,
    SPACRAWL_DRY_RUN: '1',
    ...extra,
  };
  const out = execFileSync(process.execPath, [path.join(REPO, 'action', 'comment.mjs')], { env, encoding: 'utf8' });
  const read = (f: string): string => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '');
  return { out, outputs: read(env.GITHUB_OUTPUT), summary: read(env.GITHUB_STEP_SUMMARY), body: read(path.join(dir, 'spacrawl-comment.md')) };
}

const FOOTER = '\n---\nFull report: the [`spacrawl-report` artifact of this run](https://github.com/acme/site/actions/runs/42) (index.html, diff.html, screenshots and diff images).\n';

function reportWith(diff: CrawlDiff, failOn: string[], failing: number): string {
  const dir = fs.mkdtempSync(path.join(tmp, 'report-'));
  fs.writeFileSync(path.join(dir, 'diff.json'), JSON.stringify({ ...diff, failOn, failing }));
  return dir;
}

describe('the action: comment body and outputs under a fake GitHub environment', () => {
  it('with a baseline: the marker, the diff in markdown (new findings first), a link to the run; outputs and step summary', () => {
    const dir = reportWith(sampleDiff(), ['broken-link', 'server-error'], 2);
    const r = runComment(dir);
    const md = renderDiffMarkdown({ diff: sampleDiff(), failOn: ['broken-link', 'server-error'] });
    expect(r.body).toBe(`${MARKER}\n${md}${FOOTER}`);
    expect(r.body.indexOf('### New findings')).toBeLessThan(r.body.indexOf('### Fixed findings'));
    expect(r.outputs.split('\n').slice(1)).toEqual(['new-findings=6', 'failing=2', 'visual-changes=1', '']);
    expect(r.outputs.split('\n')[0]).toMatch(/^comment-file=.*spacrawl-comment\.md$/);
    expect(r.summary).toBe(`${md}${FOOTER}\n`);
    expect(r.out).toBe(`dry run: comment body in ${r.outputs.split('\n')[0]!.slice('comment-file='.length)} (pull request #7)\n`);
  });

  it('a diff too large for a comment is cut to 65,536 characters with the link kept', () => {
    const d = sampleDiff();
    const many = (i: number): Finding => ({ rule: 'broken-link', severity: 'error', url: `https://site.test/gone/${i}`, page: `https://site.test/list/${i}`, text: `Link ${i}`, message: 'HTTP 404', count: 1, ignored: false });
    const big: CrawlDiff = { ...d, findings: { ...d.findings, new: Array.from({ length: 5000 }, (_, i) => many(i)) } };
    const r = runComment(reportWith(big, ['broken-link'], 5000));
    expect(r.body.length).toBeLessThanOrEqual(65_536);
    expect(r.body.length).toBeGreaterThan(65_536 - 600);
    expect(r.body.startsWith(`${MARKER}\n## spacrawl diff`)).toBe(true);
    expect(r.body.endsWith(FOOTER)).toBe(true);
    expect(r.body).toMatch(/_… and \d+ more items not shown: the json and html reports list them all\._\n/);
  });

  it('without a baseline: the crawl summary and a note that nothing was compared; zero counts', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'first-'));
    fs.writeFileSync(path.join(dir, 'summary.md'), '## spacrawl: 7 pages\n\nNo issues.\n');
    const r = runComment(dir);
    expect(r.body).toBe(
      `${MARKER}\n## spacrawl\n\n_No baseline of the default branch yet: nothing was compared. Once this runs on the default branch, its report becomes the baseline._\n\n## spacrawl: 7 pages\n\nNo issues.\n${FOOTER}`,
    );
    expect(r.outputs.split('\n').slice(1)).toEqual(['new-findings=0', 'failing=0', 'visual-changes=0', '']);
    expect(r.summary).toBe('');
  });
});

describe('action.yml', () => {
  it('is valid action metadata: a composite action whose run steps name a shell, inputs and outputs described, its scripts present', () => {
    // GitHub's metadata syntax (docs.github.com/actions/sharing-automations/creating-actions/metadata-syntax-for-github-actions),
    // checked with PyYAML (the machine has no YAML parser for Node).
    const check = `
import sys, yaml, os
d = yaml.safe_load(open(sys.argv[1]))
errors = []
allowed = {'name', 'author', 'description', 'inputs', 'outputs', 'runs', 'branding'}
errors += ['unknown key %s' % k for k in d if k not in allowed]
errors += ['missing %s' % k for k in ('name', 'description', 'runs') if k not in d]
r = d['runs']
if r.get('using') != 'composite': errors.append('runs.using must be composite')
for i, s in enumerate(r.get('steps', [])):
    if ('run' in s) == ('uses' in s): errors.append('step %d: exactly one of run, uses' % i)
    if 'run' in s and 'shell' not in s: errors.append('step %d: run without shell' % i)
    errors += ['step %d: unknown key %s' % (i, k) for k in s if k not in ('id', 'if', 'name', 'uses', 'with', 'run', 'shell', 'env', 'working-directory', 'continue-on-error')]
for k, v in d.get('inputs', {}).items():
    if 'description' not in v: errors.append('input %s: no description' % k)
    errors += ['input %s: unknown key %s' % (k, x) for x in v if x not in ('description', 'required', 'default', 'deprecationMessage')]
for k, v in d.get('outputs', {}).items():
    if 'description' not in v or 'value' not in v: errors.append('output %s: composite outputs need description and value' % k)
b = d.get('branding', {})
if b and b.get('color') not in ('white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark'): errors.append('branding.color')
print('\\n'.join(errors) or 'ok')
`;
    const r = spawnSync('python3', ['-c', check, path.join(REPO, 'action.yml')], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('ok\n');
    const yml = fs.readFileSync(path.join(REPO, 'action.yml'), 'utf8');
    for (const script of yml.matchAll(/action_path \}\}\/(action\/[\w.]+)/g)) expect(fs.existsSync(path.join(REPO, script[1]!))).toBe(true);
    for (const sh of ['action/baseline.sh', 'action/crawl.sh']) expect(spawnSync('bash', ['-n', path.join(REPO, sh)]).status).toBe(0);
  });
});
