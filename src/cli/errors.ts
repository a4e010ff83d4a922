import { UsageError } from '../model/errors.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { processIO, type CliIO } from './io.js';

/**
 * Map an error to a one-line message and an exit code, by its class (`src/model/errors.ts`): a
 * {@link UsageError} exits 2; anything else (an `InfrastructureError`, or an error nobody
 * expected) exits 3.
 */
export function classifyError(err: unknown): { message: string; exit: ExitCodeValue } {
  const first = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0]!.trim();
  return { message: first(err), exit: err instanceof UsageError ? ExitCode.Usage : ExitCode.Infrastructure };
}

/**
 * Leave at once with one line on stderr and `exit`, bypassing oclif's error printing (which
 * would put a JSON error object on stdout under `--json`). Only for errors found before any
 * output was written.
 * @param io - the process (default), or an in-process run's streams
 */
export function failAndExit(message: string, exit: ExitCodeValue, io: CliIO = processIO): never {
  io.stderr.write(`spacrawl: ${message}\n`);
  return io.exit(exit);
}

/**
 * One line from an error message: oclif puts a flag error's detail on a second line, so the
 * first two non-empty lines are joined and the "See more help" hint is dropped.
 * oclif's "Expected --click=maybe to be one of: …" takes the same form as the other flag errors.
 * @example oneLine(new Error('Parsing --concurrency \n\tExpected an integer…')) === '--concurrency: Expected an integer…'
 */
export function oneLine(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  return raw
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^See more help/.test(l))
    .slice(0, 2)
    .join(' ')
    .replace(/^Error: /, '')
    .replace(/^The following errors? occurred:\s*/, '')
    .replace(/^Parsing (--\S+)\s+/, '$1: ')
    // oclif's own wording for a value not among a flag's options, in the form of the others.
    .replace(/^Expected (--[\w-]+)=(.*) to be one of: (.+)$/, '$1: Expected one of $3 but received: $2')
    .replace(/^Missing required flags? ([\w-]+)$/, 'missing required flag --$1')
    // An empty value (`--max-pages ''`) is named, not left as a line that stops at its colon.
    .replace(/ but received:\s*$/, ' but received an empty value');
}
