import { UsageError } from '../model/errors.js';

/** Kinds of {@link DiffInputError}. */
export type DiffInputProblem = 'missing-input' | 'not-a-crawl' | 'different-sites' | 'bad-option';

/**
 * A side of `diff` cannot be used (a missing file, a file that is not a crawl), the two crawls
 * are of different sites (without `force`), or an option is invalid. The message is one line;
 * the CLI exits 2.
 */
export class DiffInputError extends UsageError {
  /** Stable machine-readable name of the problem. */
  readonly code: DiffInputProblem;
  constructor(code: DiffInputProblem, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DiffInputError';
    this.code = code;
  }
}
