// A vitest reporter for `npm run test:times` (scripts/test-times.mjs): one JSON file with each
// test file's tier and time (import + setup + every test and hook, as vitest's own summary line
// counts it) and each test's time. The path comes from TEST_TIMES_OUT.
import fs from 'node:fs';
import path from 'node:path';

export default class TimesReporter {
  onInit(vitest) {
    this.root = vitest.config.root;
    this.started = Date.now();
  }

  onTestRunEnd(modules) {
    const out = process.env.TEST_TIMES_OUT;
    if (!out) return;
    const files = modules.map((m) => {
      const d = m.diagnostic();
      const tests = [...m.children.allTests()].map((t) => ({
        name: t.fullName,
        ms: t.diagnostic()?.duration ?? 0,
        state: t.result().state,
      }));
      return {
        file: path.relative(this.root, m.moduleId).split(path.sep).join('/'),
        project: m.project.name,
        ms: d.collectDuration + d.setupDuration + d.prepareDuration + d.duration,
        tests,
      };
    });
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({ wallMs: Date.now() - this.started, files }, null, 1));
  }
}
