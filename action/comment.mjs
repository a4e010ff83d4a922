#!/usr/bin/env node
// The action's last step before the verdict: the markdown comment body from the crawl's
// report folder, the step summary, the step outputs, and one pull-request comment created or
// updated (found again by its marker). Runs under GitHub's environment (GITHUB_*); locally,
// set SPACRAWL_DRY_RUN=1 to write the body and the outputs without calling GitHub.
//
// Environment: SPACRAWL_DIST (spacrawl's dist/ folder), SPACRAWL_REPORT_DIR (the --output-dir),
// SPACRAWL_REPORT_ARTIFACT (artifact name, for the link), SPACRAWL_COMMENT ("true"/"false"),
// SPACRAWL_BASELINE_FOUND ("true"/"false"), GITHUB_TOKEN, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
// GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_SERVER_URL, GITHUB_API_URL, GITHUB_RUN_ID, RUNNER_TEMP.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Hidden first line of the comment: how a later run finds it to update it. */
export const MARKER = '<!-- spacrawl-gate -->';
/** GitHub's limit on a comment body (characters). */
const MAX_CHARS = 65_536;

const env = process.env;
const reportDir = path.resolve(env.SPACRAWL_REPORT_DIR || 'spacrawl-report');
const dist = path.resolve(env.SPACRAWL_DIST || path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'dist'));
const { renderDiffMarkdown } = await import(pathToFileURL(path.join(dist, 'src', 'diff', 'formats', 'markdown.js')).href);

const runUrl = `${env.GITHUB_SERVER_URL || 'https://github.com'}/${env.GITHUB_REPOSITORY || 'OWNER/REPO'}/actions/runs/${env.GITHUB_RUN_ID || '0'}`;
const artifact = env.SPACRAWL_REPORT_ARTIFACT || 'spacrawl-report';
const footer = `\n---\nFull report: the [\`${artifact}\` artifact of this run](${runUrl}) (index.html, diff.html, screenshots and diff images).\n`;

/** Append `key=value` lines to $GITHUB_OUTPUT (or print them when it is not set). */
function output(values) {
  const text = Object.entries(values).map(([k, v]) => `${k}=${v}\n`).join('');
  if (env.GITHUB_OUTPUT) fs.appendFileSync(env.GITHUB_OUTPUT, text);
  else process.stdout.write(text);
}

/** The comment body and the counts, from diff.json (with a baseline) or summary.md (without). */
function body() {
  const budget = MAX_CHARS - MARKER.length - footer.length - 2;
  const diffFile = path.join(reportDir, 'diff.json');
  if (fs.existsSync(diffFile)) {
    const report = JSON.parse(fs.readFileSync(diffFile, 'utf8'));
    const md = renderDiffMarkdown({ diff: report, failOn: report.failOn }, budget);
    return { text: `${MARKER}\n${md}${footer}`, newFindings: report.findings.new.length, failing: report.failing, visual: report.visual?.changes.length ?? 0 };
  }
  const summaryFile = path.join(reportDir, 'summary.md');
  const note = '_No baseline of the default branch yet: nothing was compared. Once this runs on the default branch, its report becomes the baseline._\n\n';
  let summary = fs.existsSync(summaryFile) ? fs.readFileSync(summaryFile, 'utf8') : '_The crawl wrote no summary._\n';
  const room = budget - note.length;
  if (summary.length > room) summary = `${summary.slice(0, room - 60).replace(/\n[^\n]*$/, '')}\n\n_… cut to fit a comment: see the full report._\n`;
  return { text: `${MARKER}\n## spacrawl\n\n${note}${summary}${footer}`, newFindings: 0, failing: 0, visual: 0 };
}

/** The pull request's number from the event payload, or `null` outside a pull-request event. */
function pullNumber() {
  try {
    const event = JSON.parse(fs.readFileSync(env.GITHUB_EVENT_PATH || '', 'utf8'));
    return event.pull_request?.number ?? null;
  } catch {
    return null;
  }
}

/** Create or update the one comment with {@link MARKER} on the pull request. */
async function postComment(number, text) {
  const api = env.GITHUB_API_URL || 'https://api.github.com';
  const headers = { authorization: `Bearer ${env.GITHUB_TOKEN}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'content-type': 'application/json' };
  const base = `${api}/repos/${env.GITHUB_REPOSITORY}/issues`;
  let existing = null;
  for (let page = 1; page <= 10 && !existing; page++) {
    const res = await fetch(`${base}/${number}/comments?per_page=100&page=${page}`, { headers });
    if (!res.ok) throw new Error(`listing comments: HTTP ${res.status}`);
    const list = await res.json();
    existing = list.find((c) => typeof c.body === 'string' && c.body.startsWith(MARKER)) ?? null;
    if (list.length < 100) break;
  }
  const res = existing
    ? await fetch(`${base}/comments/${existing.id}`, { method: 'PATCH', headers, body: JSON.stringify({ body: text }) })
    : await fetch(`${base}/${number}/comments`, { method: 'POST', headers, body: JSON.stringify({ body: text }) });
  if (!res.ok) throw new Error(`${existing ? 'updating' : 'creating'} the comment: HTTP ${res.status}`);
  return existing ? 'updated' : 'created';
}

const b = body();
const file = path.join(env.RUNNER_TEMP || reportDir, 'spacrawl-comment.md');
fs.writeFileSync(file, b.text);
output({ 'comment-file': file, 'new-findings': b.newFindings, failing: b.failing, 'visual-changes': b.visual });
// The crawl already appended its own summary; the diff goes below it.
if (env.GITHUB_STEP_SUMMARY && fs.existsSync(path.join(reportDir, 'diff.json'))) fs.appendFileSync(env.GITHUB_STEP_SUMMARY, `${b.text.slice(MARKER.length + 1)}\n`);
const number = pullNumber();
if (env.SPACRAWL_DRY_RUN === '1') console.log(`dry run: comment body in ${file}${number ? ` (pull request #${number})` : ''}`);
else if (env.SPACRAWL_COMMENT !== 'false' && number && env.GITHUB_TOKEN) {
  try {
    console.log(`pull request #${number}: comment ${await postComment(number, b.text)}`);
  } catch (err) {
    // A fork's pull request gets a read-only token: the report and the verdict still stand.
    console.log(`::warning title=spacrawl::could not post the pull-request comment (${err.message}); the body is in the step summary and ${file}`);
  }
}
