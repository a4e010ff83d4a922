/**
 * The architecture, checked: every import in src/ goes down the layer order, never up or sideways into a folder
 * above it, and no file imports itself through a cycle. Imports are read with TypeScript's own pre-processor
 * (`ts.preProcessFile`), so static, type-only, re-export and dynamic `import()` forms all count.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { matchesEntry, PROCESS_TESTS, UNIT_TESTS } from '../tiers.mjs';

/** Lowest first: a folder may import from folders before it, never after it. */
const LAYERS = ['util', 'model', 'net', 'url', 'store', 'browser', 'crawl', 'report', 'diff', 'cli', 'demo', 'commands'];
/** Files directly in src/ that may import any layer: the library's door and the in-process CLI entry. */
const DOORS = new Set(['src/index.ts', 'src/main.ts']);

/** Imports from src/ to files outside it: none (the demo site is `src/demo/`, its app `assets/demo/`). */
const OUTSIDE_SRC = new Set<string>();

const root = path.resolve(import.meta.dirname, '../..');

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(rel, out);
    else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Relative imports of one source file, resolved to src/…ts paths. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles
    .map((ref) => ref.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts'));
}

const sources = walk('src').sort();
const graph = new Map(sources.map((file) => [file, importsOf(file)]));
const layerOf = (file: string): string | undefined => {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1] : undefined;
};

describe('layers', () => {
  it('every folder of src/ has a place in the layer order', () => {
    const folders = [...new Set(sources.map(layerOf).filter((l): l is string => l !== undefined))].sort();
    expect(folders.filter((f) => !LAYERS.includes(f))).toEqual([]);
  });

  it('every relative import resolves to a source file', () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => !graph.has(t)).map((t) => `${file} -> ${t}`).filter((edge) => !OUTSIDE_SRC.has(edge)),
    );
    expect(missing).toEqual([]);
    for (const edge of OUTSIDE_SRC) expect(fs.existsSync(path.join(root, edge.split(' -> ')[1]!)), edge).toBe(true);
  });

  it('no import goes up the layer order', () => {
    const against: string[] = [];
    for (const [file, targets] of graph) {
      const from = layerOf(file);
      if (from === undefined) {
        if (!DOORS.has(file)) {
          for (const t of targets) if (layerOf(t) !== undefined) against.push(`${file} (top level) -> ${t}`);
        }
        continue;
      }
      for (const t of targets) {
        const to = layerOf(t);
        if (!t.startsWith('src/')) continue; // outside src/: checked against OUTSIDE_SRC above
        if (to === undefined && !DOORS.has(t)) continue; // src/version.ts and the like import nothing
        if (to === undefined || LAYERS.indexOf(to) > LAYERS.indexOf(from)) against.push(`${file} (${from}) -> ${t} (${to ?? 'top level'})`);
      }
    }
    expect(against).toEqual([]);
  });

  it('model imports nothing but model (and util)', () => {
    const out = [...graph]
      .filter(([file]) => layerOf(file) === 'model')
      .flatMap(([file, targets]) => targets.filter((t) => !['model', 'util'].includes(layerOf(t) ?? '')).map((t) => `${file} -> ${t}`));
    expect(out).toEqual([]);
  });

  it('no import cycles between files (type-only imports included)', () => {
    // Tarjan's strongly connected components: any component of more than one file is a cycle.
    let index = 0;
    const indexOf = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string): void => {
      indexOf.set(v, index);
      low.set(v, index);
      index += 1;
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!graph.has(w)) continue;
        if (!indexOf.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
      if (low.get(v) === indexOf.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
      }
    };
    for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
    expect(cycles).toEqual([]);
  });
});

describe('test tiers', () => {
  const matches = (file: string, glob: string): boolean => {
    if (!/^(.*\/)\*\*\/\*\.test\.ts$/.test(glob)) expect(glob).not.toMatch(/\*/); // only "dir/**/*.test.ts" or a plain file in the tier lists
    return matchesEntry(file, glob);
  };
  const testFiles = walk('test').filter((f) => f.endsWith('.test.ts'));

  it('no unit-tier file launches a browser or a child process', () => {
    const heavy = /launchBrowser|chromium\.launch|BrowserSession|\bspawn\(|execFile|bin\/run\.js|runCli\(/;
    const offenders = testFiles
      .filter((f) => UNIT_TESTS.some((g) => matches(f, g)) && f !== 'test/unit/layers.test.ts')
      .filter((f) => heavy.test(fs.readFileSync(path.join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('every tier entry names existing files and no file is in two tiers', () => {
    for (const glob of [...UNIT_TESTS, ...PROCESS_TESTS]) expect(testFiles.some((f) => matches(f, glob)), glob).toBe(true);
    const both = testFiles.filter((f) => UNIT_TESTS.some((g) => matches(f, g)) && PROCESS_TESTS.some((g) => matches(f, g)));
    expect(both).toEqual([]);
  });
});
