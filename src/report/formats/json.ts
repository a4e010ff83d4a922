import { SCHEMA_VERSION } from '../../model/record.js';
import type { ReportInput, ReportSink } from '../input.js';
import { nestedJson, stringSink } from './shared.js';

/** Write `items` as the value of a key at depth 1 of a 2-space-indented JSON document. */
function writeArray(sink: ReportSink, items: Iterable<unknown>): void {
  let first = true;
  for (const x of items) {
    sink.write(`${first ? '[\n' : ',\n'}    ${nestedJson(x, 2)}`);
    first = false;
  }
  sink.write(first ? '[]' : '\n  ]');
}

/**
 * `json`: `{schemaVersion, summary, issues, pages}`, byte for byte what
 * `JSON.stringify(…, null, 2)` of that object gives, written one issue and one record at a time.
 */
export function writeJson(input: ReportInput, sink: ReportSink): void {
  sink.write(`{\n  "schemaVersion": ${JSON.stringify(SCHEMA_VERSION)},\n  "summary": ${nestedJson(input.summary, 1)},\n  "issues": `);
  writeArray(sink, input.audit.issues);
  sink.write(',\n  "pages": ');
  writeArray(sink, input.records);
  sink.write('\n}\n');
}

/** {@link writeJson} as one string. */
export function renderJson(input: ReportInput): string {
  const s = stringSink();
  writeJson(input, s);
  return s.text();
}
