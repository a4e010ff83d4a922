import type { ReportInput } from '../formats.js';

/** `jsonl`: one PageRecord per line (the same rows `--out` streams). */
export function renderJsonl(input: ReportInput): string {
  return input.records.map((r) => `${JSON.stringify(r)}\n`).join('');
}
