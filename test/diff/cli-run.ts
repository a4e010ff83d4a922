import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** The worktree's root. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(REPO, 'bin', 'run.js');

/** How a CLI run ended. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Build dist/ from the current sources (the CLI runs from there). */
export function buildCli(): void {
  try {
    execFileSync(process.execPath, [path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: REPO, stdio: 'pipe' });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`tsc -p tsconfig.json failed:\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
  }
}

/** Run `node bin/run.js ...args` in `cwd` and collect its exit code and output (killed after `killMs`, 60 s by default). */
export function runCli(args: string[], cwd = REPO, killMs = 60_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env.SPACRAWL_DEBUG;
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (stdout += c));
    child.stderr.on('data', (c: string) => (stderr += c));
    const killer = setTimeout(() => child.kill('SIGKILL'), killMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Assert a usage failure: exit 2, exactly `line` on stderr (one line), nothing on stdout. */
export function expectUsageError(r: Run, line: string): void {
  expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: '', stderr: `spacrawl: ${line}\n` });
}
