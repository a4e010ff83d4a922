/**
 * launchFailure: the one line a crawl prints when its browser does not start, read from
 * Playwright's launch error (shapes as Playwright 1.65 writes them, ANSI codes included).
 */
import { describe, expect, it } from 'vitest';
import { launchFailure } from '../../src/browser/launch.js';

/** A launch error as Playwright writes it: first line, the browser's own output, the call log. */
const launchError = (first: string, said: string[], exit: string): string =>
  [
    `browserType.launch: ${first}`,
    'Browser logs:',
    '',
    '<launching> /opt/b --headless --remote-debugging-pipe',
    '<launched> pid=7',
    ...said,
    'Call log:',
    '\u001b[2m  - <launching> /opt/b --headless\u001b[22m',
    `\u001b[2m  - [pid=7] ${exit}\u001b[22m`,
  ].join('\n');

describe('launchFailure', () => {
  it('an executable that exits at once: its exit code, not "has been closed"', () => {
    expect(launchFailure(launchError('Target page, context or browser has been closed', [], '<process did exit: exitCode=1, signal=null>'))).toBe('it exited at once (exit code 1)');
  });

  it("with the first line the executable printed (a missing library), without Playwright's [pid][err] prefix", () => {
    const said = ['[pid=7][err] chromium: error while loading shared libraries: libnss3.so: cannot open shared object file', '[pid=7][err] second line'];
    expect(launchFailure(launchError('Target page, context or browser has been closed', said, '<process did exit: exitCode=127, signal=null>'))).toBe(
      'it exited at once (exit code 127): chromium: error while loading shared libraries: libnss3.so: cannot open shared object file',
    );
  });

  it('ended by a signal', () => {
    expect(launchFailure(launchError('Target page, context or browser has been closed', [], '<process did exit: exitCode=null, signal=SIGSEGV>'))).toBe('it ended at once (signal SIGSEGV)');
  });

  it("any other failure: Playwright's first line, as it is", () => {
    expect(launchFailure(launchError('Timeout 30000ms exceeded.', [], '<gracefully close start>'))).toBe('Timeout 30000ms exceeded.');
    expect(launchFailure('browserType.launch: Target page, context or browser has been closed')).toBe('Target page, context or browser has been closed');
  });
});
