import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * PIDs of this process's Chromium children (Playwright runs in the test process, so the browsers
 * it launches are its children; the worker's shared browser is one of them).
 */
export function chromiumChildren(): number[] {
  return execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([, comm]) => comm && /chrom/i.test(comm))
    .map(([pid]) => Number(pid));
}

/** PIDs of `root` and every process below it, read from /proc (Linux). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(d));
      children.set(ppid, list);
    } catch {
      // the process ended while the table was read
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]!) ?? []));
  return out;
}

/**
 * Count the Chromium renderer processes (`--type=renderer`) that appear below `root` from now
 * until `stop()`, sampling every 20 ms: short-lived processes are caught too. `peakLive()` is
 * the most renderers alive at one sample.
 */
export function watchRenderers(root: number = process.pid): { stop(): number; peakLive(): number } {
  const isRenderer = (pid: number): boolean => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
    } catch {
      return false;
    }
  };
  const before = new Set(descendants(root).filter(isRenderer));
  const seen = new Set<number>();
  let peak = 0;
  const sample = (): void => {
    let live = 0;
    for (const pid of descendants(root)) {
      if (before.has(pid) || !isRenderer(pid)) continue;
      live++;
      seen.add(pid);
    }
    peak = Math.max(peak, live);
  };
  const timer = setInterval(sample, 20);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return seen.size;
    },
    peakLive: () => peak,
  };
}
