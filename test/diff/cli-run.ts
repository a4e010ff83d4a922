import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { runInProcess } from '../helpers/cli.js';

/** The worktree's root. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** How a CLI run ended. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run `spacrawl ...args` in this process ({@link runInProcess}: the sources, no build, no child
 * process) with `cwd` as the working directory, and collect its exit code and output. The diff
 * and baseline tests need nothing of a real process: their paths are relative to `cwd`.
 * @param killMs - fail the run (reject) when it has not ended after this long (60 s by default)
 */
export async function runCli(args: string[], cwd = REPO, killMs = 60_000): Promise<Run> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`spacrawl ${args.join(' ')} did not end within ${killMs} ms`)), killMs);
  });
  try {
    const r = await Promise.race([runInProcess(args, { cwd }), timedOut]);
    return { code: r.code, stdout: r.stdout, stderr: r.stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** Assert a usage failure: exit 2, exactly `line` on stderr (one line), nothing on stdout. */
export function expectUsageError(r: Run, line: string): void {
  expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: '', stderr: `spacrawl: ${line}\n` });
}
