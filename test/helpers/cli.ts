import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { CliExit, runCli, type CliIO, type StopSignal } from '../../src/main.js';
import type { LogStream } from '../../src/report/progress.js';

/** The checkout's root. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The CLI's entry point for spawned runs (it runs the build in dist/). */
export const BIN = path.join(REPO, 'bin', 'run.js');

/** What a CLI run left behind. */
export interface CliRun {
  /** Exit code (`null` when a spawned process was killed by a signal). */
  code: number | null;
  /** The signal that killed a spawned process, else `null`. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from start to exit (ms). */
  ms: number;
}

/** A writable stream that collects its text as it is written, a terminal when `tty`. */
export function textSink(tty = false): { stream: LogStream; text: () => string } {
  let out = '';
  const s = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  }) as Writable & LogStream;
  if (tty) {
    s.isTTY = true;
    s.columns = 120;
  }
  return { stream: s, text: () => out };
}

/** A {@link CliIO} in memory: collected stdout and stderr, an environment of its own, signals sent by the test. */
export interface MemoryIO {
  io: CliIO;
  stdout(): string;
  stderr(): string;
  /** Deliver a signal to the command's listeners (as the process would on Ctrl-C). */
  signal(sig: StopSignal): void;
}

/**
 * A {@link CliIO} for in-process runs.
 * @param env - the whole environment the command sees (nothing of the test process's leaks in)
 * @param tty - make stderr a terminal (120 columns)
 */
export function memoryIO(env: Record<string, string> = {}, tty = false): MemoryIO {
  const out = textSink(false);
  const err = textSink(tty);
  const listeners = new Set<(s: StopSignal) => void>();
  const io: CliIO = {
    stdout: out.stream,
    stderr: err.stream,
    env,
    onSignal(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    exit(code): never {
      throw new CliExit(code);
    },
  };
  return {
    io,
    stdout: out.text,
    stderr: err.text,
    signal: (sig) => {
      for (const l of [...listeners]) l(sig);
    },
  };
}

/** Options of {@link runInProcess}. */
export interface InProcessOptions {
  /** The command's whole environment. */
  env?: Record<string, string>;
  /** Called right after the command starts, with its I/O (to send signals, read stderr so far). */
  onStart?: (m: MemoryIO) => void;
  /**
   * The working directory the command resolves relative paths against: the process's own is
   * changed for the run and restored after it (a vitest worker runs one file at a time).
   */
  cwd?: string;
}

/**
 * Run `spacrawl ARGS…` in this process ({@link runCli} with a {@link memoryIO}): the sources,
 * no build, no child process.
 */
export async function runInProcess(args: string[], opts: InProcessOptions = {}): Promise<CliRun> {
  const m = memoryIO(opts.env ?? {});
  const t0 = Date.now();
  const before = process.cwd();
  if (opts.cwd !== undefined) process.chdir(opts.cwd);
  try {
    const running = runCli(args, m.io);
    opts.onStart?.(m);
    const code = await running;
    return { code, signal: null, stdout: m.stdout(), stderr: m.stderr(), ms: Date.now() - t0 };
  } finally {
    if (opts.cwd !== undefined) process.chdir(before);
  }
}

/** Newest modification time (ms) of the .ts files under `dir`. */
function newestSource(dir: string): number {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const f = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newestSource(f));
    else if (e.name.endsWith('.ts')) t = Math.max(t, fs.statSync(f).mtimeMs);
  }
  return t;
}

/**
 * Fail unless dist/ is built from the current sources: spawned runs execute the build, and no
 * test builds it (`npm test` does, through scripts/setup.mjs; by hand: `npx tsc -p tsconfig.json`).
 * @throws Error naming the command to run
 */
export function assertBuilt(): void {
  const built = path.join(REPO, 'dist', 'src', 'main.js');
  const stale = !fs.existsSync(built) || fs.statSync(built).mtimeMs < Math.max(newestSource(path.join(REPO, 'src')), newestSource(path.join(REPO, 'fixtures')));
  if (stale) throw new Error('dist/ is missing or older than src/: build it first with `npx tsc -p tsconfig.json` (npm test does)');
}

/** Options of {@link spawnCli}. */
export interface SpawnOptions {
  /** Added to the test process's environment (SPACRAWL_DEBUG is removed). */
  env?: Record<string, string>;
  /** Kill the child (SIGKILL) after this long; the test then fails on the exit code. @default 90000 */
  killAfterMs?: number;
  /** Called with the child and a way to read stderr so far, right after spawning. */
  onSpawn?: (child: ChildProcess, stderrSoFar: () => string) => void;
  /** Working directory. @default the checkout */
  cwd?: string;
}

/** Run `node bin/run.js ARGS…` as a child process (for what needs a real process: signals, exit codes, env). */
export function spawnCli(args: string[], opts: SpawnOptions = {}): Promise<CliRun> {
  assertBuilt();
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const env = { ...process.env, ...opts.env };
    delete env.SPACRAWL_DEBUG;
    const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (stdout += c));
    child.stderr.on('data', (c: string) => (stderr += c));
    const killer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 });
    });
    opts.onSpawn?.(child, () => stderr);
  });
}

/** Non-empty lines of a text. */
export const lines = (s: string): string[] => s.split('\n').filter((l) => l.trim() !== '');
