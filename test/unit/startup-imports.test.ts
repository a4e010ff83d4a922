/**
 * Usage checks load none of the work's packages, checked on the import graph (no process: the
 * unit tier): the modules a command loads before its checks have passed (the command table, the
 * crawl command's checks, and what the other commands import for theirs) reach, through their
 * static imports, no browser driver, store client, image comparison, metrics or report format,
 * nor spacrawl's browser layer. Type-only imports and dynamic `import()` load nothing at that
 * point and are not followed; a plain import is followed even when tsc would drop it (used as a
 * type only), so the check errs on the safe side. test/startup.test.ts checks the same by
 * running the CLI (process tier); this one names the import chain that broke it.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { HEAVY_PACKAGES as HEAVY } from '../helpers/heavy-packages.js';

const root = path.resolve(import.meta.dirname, '../..');


/**
 * What loads before a usage check can fail: the command table (every command's declaration, for
 * `--help` and flag parsing), the crawl command's checks (everything before `openFrontier`), and
 * the modules the other commands import first, for their checks (see each command's `run`).
 */
const CHECKS = [
  'src/main.ts',
  'src/commands/index.ts',
  'src/cli/crawl-command.ts',
  'src/cli/validate.ts',
  'src/cli/redis-target.ts',
  'src/crawl/options.ts',
  'src/crawl/options-error.ts',
  'src/report/report-spec.ts',
  'src/report/budget.ts',
  'src/url/pattern.ts',
  'src/diff/findings.ts',
  'src/diff/formats/spec.ts',
  'src/diff/visual-threshold.ts',
  'src/diff/map-origin.ts',
  'src/diff/baseline-open.ts',
  'src/diff/source.ts',
];

/** The module specifiers a file loads when it loads: static imports and re-exports that are not type-only, and `require()` calls. */
function loadedBy(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const st of source.statements) {
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : null;
      const onlyTypes = clause !== undefined && (clause.isTypeOnly || (!clause.name && named !== null && named.length > 0 && named.every((e) => e.isTypeOnly)));
      if (!onlyTypes) out.push((st.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier) {
      const named = st.exportClause && ts.isNamedExports(st.exportClause) ? st.exportClause.elements : null;
      const onlyTypes = st.isTypeOnly || (named !== null && named.length > 0 && named.every((e) => e.isTypeOnly));
      if (!onlyTypes) out.push((st.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  // A `require('pkg')` (through `createRequire`, as `src/browser/playwright.ts` loads Playwright)
  // loads when its module does: counted wherever it is, as the safe side.
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require' && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0]!)) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The package a bare specifier names (`@scope/name` or `name`). */
function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Everything `entry` loads through static imports: spacrawl's files (src/… paths) and packages
 * (`pkg:NAME`), each with the chain of imports that reaches it.
 */
function staticClosure(entry: string): Map<string, string[]> {
  const chains = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift()!;
    for (const spec of loadedBy(file)) {
      if (spec.startsWith('node:')) continue;
      const target = spec.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts') : `pkg:${packageOf(spec)}`;
      if (chains.has(target)) continue;
      chains.set(target, [...chains.get(file)!, target]);
      if (!target.startsWith('pkg:')) queue.push(target);
    }
  }
  return chains;
}

/** The chains from `entry` to heavy packages and to the browser layer, as `a -> b -> pkg:c`. */
function heavyChains(entry: string): string[] {
  return [...staticClosure(entry)]
    .filter(([target]) => HEAVY.includes(target.replace(/^pkg:/, '')) || target.startsWith('src/browser/'))
    .map(([, chain]) => chain.join(' -> '));
}

describe('startup imports: usage checks load none of the work', () => {
  it('the walk sees the heavy packages where the work imports them', () => {
    expect(heavyChains('src/cli/run-crawl.ts').join('\n')).toMatch(/pkg:playwright\b/);
    expect(heavyChains('src/diff/diff.ts').join('\n')).toMatch(/pkg:pngjs/);
    expect(heavyChains('src/report/metrics.ts').join('\n')).toMatch(/pkg:prom-client/);
  });

  for (const entry of CHECKS) {
    it(entry, () => {
      expect(fs.existsSync(path.join(root, entry)), entry).toBe(true);
      expect(heavyChains(entry)).toEqual([]);
    });
  }
});

/**
 * The packages a crawl loads only for the flags that use them (issue #31: "work that a flag turns
 * on must cost nothing when it is off"): the stores (`--state`, `--redis`), the metrics
 * (`--metrics`), the report writers (`--report`), the sitemap reader (`--sitemap`), the baseline's
 * image comparison (`--baseline`), the live progress line (a terminal), axe (`--a11y`).
 */
const FLAG_GATED = HEAVY.filter((p) => p !== 'playwright' && p !== 'playwright-core');

/** The modules a crawl with default flags runs: the crawl command's work and its frontier. */
const CRAWL_PATH = ['src/cli/run-crawl.ts', 'src/cli/open-frontier.ts', 'src/crawl/crawler.ts', 'src/cli/early-launch.ts', 'src/browser/launch.ts'];

describe('crawl imports: a crawl loads the packages of its flags only when they are on', () => {
  it('the walk sees each of them from the module that loads it on demand', () => {
    const reached = (entry: string): string[] => [...staticClosure(entry).keys()].filter((k) => k.startsWith('pkg:')).map((k) => k.slice(4));
    expect(reached('src/store/redis/frontier.ts')).toContain('ioredis');
    expect(reached('src/store/sqlite/frontier.ts')).toContain('better-sqlite3');
    expect(reached('src/report/formats.ts')).toEqual(expect.arrayContaining(['csv-stringify', 'fast-xml-parser']));
    expect(reached('src/crawl/sitemap-seeds.ts')).toContain('fast-xml-parser');
    expect(reached('src/diff/baseline.ts')).toEqual(expect.arrayContaining(['pngjs', 'pixelmatch']));
    // and a crawl does reach the browser driver
    expect(reached('src/cli/run-crawl.ts')).toContain('playwright');
  });

  for (const entry of CRAWL_PATH) {
    it(entry, () => {
      const chains = [...staticClosure(entry)].filter(([t]) => FLAG_GATED.includes(t.replace(/^pkg:/, ''))).map(([, c]) => c.join(' -> '));
      expect(chains).toEqual([]);
    });
  }
});
