// Preloaded into the CLI process of the bench's CLI rows (NODE_OPTIONS=--require …): records the
// Node process's own memory, apart from Chromium's, into $SPACRAWL_BENCH_PEAK when it exits:
// - maxRssKb: its peak resident set (getrusage maxRSS: exact, kept by the kernel);
// - heapUsed, external: the peaks of V8's used heap (live objects and garbage not yet collected)
//   and of memory outside the heap (Buffers, ArrayBuffers), sampled every 250 ms;
// - liveHeap: the peak of the used heap just after V8's full (mark-compact) collections, i.e.
//   what the process keeps; observed, never forced, so the other figures are V8's own.
// With $SPACRAWL_BENCH_SERIES set, it also appends a line "ms-since-start rss heapUsed" (bytes)
// every 5 s to $SPACRAWL_BENCH_SERIES.<pid>: where in the crawl the peaks happen.
const fs = require('node:fs');
const { PerformanceObserver, constants } = require('node:perf_hooks');
const file = process.env.SPACRAWL_BENCH_PEAK;
if (file) {
  let heap = 0;
  let external = 0;
  let live = 0;
  const sample = () => {
    const m = process.memoryUsage();
    heap = Math.max(heap, m.heapUsed);
    external = Math.max(external, m.external); // arrayBuffers is a part of external
  };
  setInterval(sample, 250).unref();
  const series = process.env.SPACRAWL_BENCH_SERIES;
  if (series) {
    const t0 = Date.now();
    setInterval(() => {
      const m = process.memoryUsage();
      fs.appendFileSync(`${series}.${process.pid}`, `${Date.now() - t0} ${m.rss} ${m.heapUsed}\n`);
    }, 5_000).unref();
  }
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) live = Math.max(live, process.memoryUsage().heapUsed);
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    sample();
    fs.writeFileSync(file, JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, heapUsed: heap, external, liveHeap: live }));
  });
}
