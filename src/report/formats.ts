import fs from 'node:fs';
import { OptionsError } from '../crawl/options-error.js';
import { describeFsError } from '../util/files.js';
import type { ReportFormatter, ReportInput, ReportSink } from './input.js';
import { REPORT_FILE_NAMES, type ReportFormatName, type ReportSpec } from './report-spec.js';
import { renderCsv, writeCsv } from './formats/csv.js';
import { renderHtml, writeHtml } from './formats/html.js';
import { renderJson, writeJson } from './formats/json.js';
import { renderJsonl, writeJsonl } from './formats/jsonl.js';
import { renderJunit, writeJunit } from './formats/junit.js';
import { renderMarkdown, writeMarkdown } from './formats/markdown.js';
import { renderSitemap, writeSitemap } from './formats/sitemap.js';

export type { ReportFormatter, ReportInput, ReportSink, RecordSource } from './input.js';
export { parseReportSpec, type ReportSpec } from './report-spec.js';

/** The registry, declared for exactly the formats {@link REPORT_FILE_NAMES} names: one missing or extra fails to compile. */
const REGISTRY: Record<ReportFormatName, ReportFormatter> = {
  jsonl: { fileName: REPORT_FILE_NAMES.jsonl, write: writeJsonl, render: renderJsonl },
  json: { fileName: REPORT_FILE_NAMES.json, write: writeJson, render: renderJson },
  csv: { fileName: REPORT_FILE_NAMES.csv, write: writeCsv, render: renderCsv },
  html: { fileName: REPORT_FILE_NAMES.html, write: writeHtml, render: renderHtml },
  junit: { fileName: REPORT_FILE_NAMES.junit, write: writeJunit, render: renderJunit },
  sitemap: { fileName: REPORT_FILE_NAMES.sitemap, write: writeSitemap, render: renderSitemap },
  markdown: { fileName: REPORT_FILE_NAMES.markdown, write: writeMarkdown, render: renderMarkdown },
};

/**
 * The report formats, by name: the registry. Each lives in `./formats/<name>.ts` and imports
 * only `./formats/shared.ts` and the model, never this registry nor another format. Names and
 * file names come from `report-spec.ts`.
 */
export const FORMATTERS: Record<string, ReportFormatter> = REGISTRY;

/** Bytes collected before one write to the file or stream. */
const CHUNK_BYTES = 64 * 1024;

/** A sink that collects small pieces and hands them on in chunks of about {@link CHUNK_BYTES}. */
function chunked(out: (chunk: string) => void): ReportSink & { end(): void } {
  let parts: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (!parts.length) return;
    out(parts.join(''));
    parts = [];
    size = 0;
  };
  return {
    write(text) {
      parts.push(text);
      size += text.length;
      if (size >= CHUNK_BYTES) flush();
    },
    end: flush,
  };
}

/** Write all of `text` to `fd` (a write may take only part of it). */
function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  for (let off = 0; off < buf.length; ) off += fs.writeSync(fd, buf, off);
}

/** Where a report goes when its spec has no path (the CLI's stdout). */
export interface TextOut {
  write(text: string): unknown;
}

/**
 * Write one report to its path, or to `stdout` when the spec has none, piece by piece as the
 * format produces it (never the whole text at once).
 * @param stdout - the stream for a report without a path (default `process.stdout`)
 * @throws OptionsError when the file cannot be written (one line)
 */
export function writeReport(spec: ReportSpec, input: ReportInput, stdout: TextOut = process.stdout): void {
  const f = FORMATTERS[spec.format]!;
  if (spec.path === null) {
    const sink = chunked((c) => stdout.write(c));
    f.write(input, sink, null);
    sink.end();
    return;
  }
  const file = spec.path;
  const fail = (err: unknown): never => {
    throw new OptionsError(`cannot write ${file}: ${describeFsError(err)}`);
  };
  let fd: number;
  try {
    fd = fs.openSync(file, 'w');
  } catch (err) {
    return fail(err);
  }
  try {
    const sink = chunked((c) => {
      try {
        writeAll(fd, c);
      } catch (err) {
        fail(err);
      }
    });
    f.write(input, sink, file);
    sink.end();
  } finally {
    fs.closeSync(fd);
  }
}
