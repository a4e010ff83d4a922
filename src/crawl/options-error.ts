/**
 * {@link OptionsError}, in a module of its own: the CLI's usage checks throw it without loading
 * `options.ts` (the options' declarations and resolution). `options.ts` re-exports it.
 * @module
 */
import { UsageError } from '../model/errors.js';

/** Thrown for options that make no sense (the CLI maps it to exit code 2). */
export class OptionsError extends UsageError {
  readonly code = 'bad-option';
  constructor(message: string) {
    super(message);
    this.name = 'OptionsError';
  }
}
