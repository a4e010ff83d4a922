/**
 * Crawl diffs: `diffCrawls()` over two record sources, and the diff's report formats. A layer
 * above `src/report/`; nothing below imports it.
 * @module
 */
export { diffCrawls, DEFAULT_THRESHOLD_MS, DEFAULT_THRESHOLD_RATIO, type DiffOptions } from './diff.js';
export { DiffInputError, type DiffInputProblem } from './errors.js';
export { DEFAULT_DIFF_FAIL_ON, LINK_RULES, failingFindings, findingKey, matchesFailOn, parseFailOn } from './findings.js';
export { DIFF_FORMATTERS, parseDiffReportSpec, writeDiffReport, type DiffFormatter, type DiffReportInput, type DiffReportSpec } from './formats/index.js';
export { diffReport } from './formats/json.js';
export { mapRecordOrigins, mapSourceOrigins, mapUrl, parseOriginMaps, type OriginMap } from './map-origin.js';
export { memorySource, openRecordSource, type RecordSource } from './source.js';
export { diffSummary } from './terminal.js';
export * from './types.js';
