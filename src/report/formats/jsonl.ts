import type { ReportInput, ReportSink } from '../input.js';
import { stringSink } from './shared.js';

/** `jsonl`: one PageRecord per line (the same rows `--out` streams), written record by record. */
export function writeJsonl(input: ReportInput, sink: ReportSink): void {
  for (const r of input.records) sink.write(`${JSON.stringify(r)}\n`);
}

/** {@link writeJsonl} as one string. */
export function renderJsonl(input: ReportInput): string {
  const s = stringSink();
  writeJsonl(input, s);
  return s.text();
}
