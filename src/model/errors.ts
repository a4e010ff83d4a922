/**
 * The error hierarchy: every error spacrawl throws on purpose is a {@link UsageError} (the input
 * cannot be used: the CLI exits 2) or an {@link InfrastructureError} (something the crawl needs
 * failed: the CLI exits 3). The class decides the exit code; `code` is a stable machine-readable
 * name for each kind. This module imports nothing.
 * @module
 */

/** Base of every deliberate spacrawl error. */
export abstract class SpacrawlError extends Error {
  /** Stable machine-readable name of the kind of error (e.g. `bad-option`, `state-store`). */
  abstract readonly code: string;
}

/**
 * Bad usage or input, found before crawling (an invalid URL, flag, pattern or output path; no
 * browser; a state file or crawl id that cannot be used). The CLI exits 2 with its message.
 */
export abstract class UsageError extends SpacrawlError {}

/**
 * The crawl cannot go on: the state database or Redis failed, or the browser died and could not
 * be relaunched. The CLI flushes what was recorded and exits 3 with its message.
 */
export class InfrastructureError extends SpacrawlError {
  readonly code: string = 'infrastructure';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InfrastructureError';
  }
}
