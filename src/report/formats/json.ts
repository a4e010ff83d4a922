import type { ReportInput } from '../formats.js';
import { SCHEMA_VERSION } from '../../model/record.js';

/** `json`: `{schemaVersion, summary, issues, pages}`. */
export function renderJson(input: ReportInput): string {
  return `${JSON.stringify({ schemaVersion: SCHEMA_VERSION, summary: input.summary, issues: input.audit.issues, pages: input.records }, null, 2)}\n`;
}
