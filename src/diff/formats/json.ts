import { failingFindings } from '../findings.js';
import type { DiffReport } from '../types.js';
import type { DiffReportInput } from './input.js';

/** The diff object with its verdict: what `json` writes and `--json` prints. */
export function diffReport(input: DiffReportInput): DiffReport {
  return { ...input.diff, failOn: [...input.failOn], failing: failingFindings(input.diff, input.failOn).length };
}

/** `json`: the whole {@link DiffReport}, every finding and change listed, two-space indented. */
export function renderDiffJson(input: DiffReportInput): string {
  return `${JSON.stringify(diffReport(input), null, 2)}\n`;
}
