// Process-tree sampling shared by the benchmarks (bench/sites.mjs now; bench/run.mjs can move to
// it): peak memory, CPU seconds and CPU by kind of process of a process and its descendants,
// read from /proc (Linux only).
import fs from 'node:fs';

/** `root` and every process below it (from /proc/PID/stat parent ids). */
export function treePids(root) {
  const children = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch { /* gone */ }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]) ?? []));
  return out;
}

/** How often the exact PSS of the tree is read (ms): `smaps_rollup` costs ~6 ms per Chromium process. */
export const PSS_EVERY_MS = 5000;

/** The kind of a process: `node`, `browser`, `renderer`, `gpu`, `network`, `zygote`, `utility`, `other`. */
export function kindOf(pid) {
  try {
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const type = /--type=([a-z-]+)/.exec(cmd)?.[1];
    if (!type) return /chrom/i.test(cmd) ? 'browser' : /node/.test(cmd.split('\0')[0] ?? '') ? 'node' : 'other';
    if (type === 'gpu-process') return 'gpu';
    if (type === 'utility') return /NetworkService/.test(cmd) ? 'network' : 'utility';
    return type;
  } catch {
    return 'other';
  }
}

/**
 * Memory and CPU of the tree under `root`. `mem` (bytes): each process's private anonymous and
 * shared-memory pages, plus the file-backed pages once (from the process with the most: the
 * Chromium binary is shared by every process). `pss` (bytes, proportional set size from
 * smaps_rollup) is exact but costs ~150 ms of kernel time for 25 processes: read only when asked.
 * `cpu` (s): user + system time of the live processes and of the children they reaped.
 */
export function treeStats(root, withPss = false, perProcess = null) {
  let anon = 0;
  let file = 0;
  let pss = 0;
  let cpu = 0;
  const hz = 100;
  for (const pid of treePids(root)) {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
      anon += kb('RssAnon') + kb('RssShmem');
      file = Math.max(file, kb('RssFile'));
      if (withPss) {
        const roll = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
        const m = /^Pss:\s+(\d+) kB/m.exec(roll);
        pss += m ? Number(m[1]) * 1024 : 0;
      }
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / hz; // utime stime cutime cstime
      if (perProcess) {
        const own = (Number(f[11]) + Number(f[12])) / hz;
        const known = perProcess.get(pid);
        if (known) known.cpu = own;
        else perProcess.set(pid, { kind: pid === process.pid ? 'node' : kindOf(pid), cpu: own, base: perProcess.started ? 0 : own });
      }
    } catch { /* gone */ }
  }
  return { mem: anon + file, pss, cpu };
}

/**
 * Samples the tree under `root` (default: this process) every 100 ms until `stop()`: peak
 * memory (`peakMb`), peak PSS (`peakPssMb`, read every {@link PSS_EVERY_MS}), CPU seconds
 * (`cpuS`: every process seen, those that ended included) and CPU seconds by kind of process
 * (`cpuByKind`; a process that ends loses at most its last 100 ms). Call `stop()` while `root` is still alive, or read CPU from elsewhere.
 */
export function sampler(root = process.pid) {
  let peak = 0;
  let peakPss = 0;
  let lastCpu = 0;
  let lastPss = Date.now();
  const perProcess = new Map();
  const cpu0 = root === process.pid ? treeStats(root, false, perProcess).cpu : 0;
  perProcess.started = true;
  const t = setInterval(() => {
    const withPss = Date.now() - lastPss >= PSS_EVERY_MS;
    if (withPss) lastPss = Date.now();
    const s = treeStats(root, withPss, perProcess);
    peak = Math.max(peak, s.mem);
    peakPss = Math.max(peakPss, s.pss);
    lastCpu = Math.max(lastCpu, s.cpu);
  }, 100);
  return {
    stop() {
      clearInterval(t);
      const s = treeStats(root, true, perProcess);
      const mb = (b) => Math.round(b / 1048576);
      const cpuByKind = {};
      let seen = 0;
      for (const p of perProcess.values()) {
        cpuByKind[p.kind] = (cpuByKind[p.kind] ?? 0) + p.cpu - p.base;
        seen += p.cpu - p.base;
      }
      // Two lower bounds; the larger is kept. The live tree's total (with what each process
      // reaped) drops when a process ends unreaped (Chromium's renderers and zygote are not
      // waited for up the tree); the sum over every process ever seen keeps each one's last
      // sample, and misses only processes that lived less than one interval.
      return { peakMb: mb(Math.max(peak, s.mem)), peakPssMb: mb(Math.max(peakPss, s.pss)), cpuS: Math.max(Math.max(lastCpu, s.cpu) - cpu0, seen), cpuByKind };
    },
  };
}

/** User + system CPU seconds of the children this process has waited for (`cutime + cstime`). */
export function reapedChildrenCpuS() {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
}

/**
 * CPU seconds the hypervisor gave to other guests (`steal` of /proc/stat's `cpu` line, all cores),
 * since boot. On a shared virtual machine a run that meets a busy host gets less of its cores:
 * its wall time grows with no change in the crawler (a TypeDoc floor run took 12.9 s with 5.2 s
 * stolen, 8.8 s with 0.4).
 */
export function stolenCpuS() {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith('cpu '));
  const f = (line ?? '').trim().split(/\s+/);
  return Number(f[8] ?? 0) / 100;
}

/** The `p`th percentile of `xs` (nearest rank), `null` for none. */
export function pct(xs, p) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
