import { chromium } from 'playwright';
import fs from 'node:fs';
const [site, port, every] = process.argv.slice(2);
const pages = fs.readFileSync(`/work/shared/sites/${site}/pages.txt`, 'utf8').trim().split('\n').slice(0, 24);
const b = await chromium.launch({ executablePath: '/usr/bin/chromium' });
const p = await b.newPage();
const c = await p.context().newCDPSession(p);
const bc = await b.newBrowserCDPSession();
const priv = (pid) => { try { const s = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'); const g = (k) => Number(new RegExp(k + ':\\s+(\\d+)').exec(s)[1]); return Math.round((g('Private_Clean') + g('Private_Dirty')) / 1024); } catch { return -1; } };
const rendererPids = async () => (await bc.send('SystemInfo.getProcessInfo')).processInfo.filter(x => x.type === 'renderer').map(x => x.id);
const mb = (x) => (x / 1048576).toFixed(1);
let i = 0;
for (const path of pages) {
  await p.goto(`http://127.0.0.1:${port}${path}`, { waitUntil: 'load' });
  await p.waitForTimeout(300);
  const h = await c.send('Runtime.getHeapUsage');
  const pids = await rendererPids();
  let line = `${++i} ${path.slice(0, 30).padEnd(30)} v8 ${mb(h.usedSize)}/${mb(h.totalSize)} emb ${mb(h.embedderHeapUsedSize)} priv ${pids.map(priv).join(',')}`;
  if (every !== '0' && i % Number(every) === 0) {
    await c.send('HeapProfiler.collectGarbage');
    const h2 = await c.send('Runtime.getHeapUsage');
    line += ` | GC → v8 ${mb(h2.usedSize)}/${mb(h2.totalSize)} emb ${mb(h2.embedderHeapUsedSize)} priv ${pids.map(priv).join(',')}`;
  }
  console.log(line);
}
await b.close();
