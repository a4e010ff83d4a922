// docs/flags.md is made from the option declarations (scripts/docs-flags.mjs, `npm run docs:flags`),
// as `--help` is; and the relative links between README.md and docs/ lead somewhere. No browser,
// no process: the text is made again in memory and compared with the file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import { declarationOf } from '../../src/cli/flags.js';
import { FLAGS_DOC, renderFlagsDoc } from '../../src/cli/flag-table.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string): string => fs.readFileSync(path.join(REPO, file), 'utf8');

describe('docs/flags.md', () => {
  it('is the text made from the declarations of every command', () => {
    const file = fs.existsSync(path.join(REPO, FLAGS_DOC)) ? read(FLAGS_DOC) : '(missing)';
    // Not toBe: a diff of ~300 long lines says less than the fix.
    const same = file === renderFlagsDoc(COMMANDS);
    expect(same, `${FLAGS_DOC} differs from the flag declarations: run \`npm run docs:flags\``).toBe(true);
  });

  it('lists every flag of every command once, in its command\'s section', () => {
    const text = renderFlagsDoc(COMMANDS);
    const sections = text.split(/^## spacrawl /m).slice(1);
    expect(sections.map((s) => s.split('\n')[0])).toEqual(Object.keys(COMMANDS));
    for (const [id, cmd] of Object.entries(COMMANDS)) {
      const section = sections.find((s) => s.startsWith(`${id}\n`))!;
      for (const [name, flag] of Object.entries(cmd.flags as Record<string, unknown>)) {
        expect(declarationOf(flag), `${id} --${name} is made from a declaration`).toBeDefined();
        const rows = section.split('\n').filter((l) => new RegExp(`^\\| \`(-[a-z], )?--(\\[no-\\])?${name}[ \`]`).test(l));
        expect(rows.length, `${id} --${name}`).toBe(1);
      }
      if (cmd.enableJsonFlag) expect(section, `${id} --json`).toMatch(/^\| `--json` \|/m);
    }
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings (outside code fences), with GitHub's `-1` for repeats. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('links between README.md and docs/', () => {
  const files = ['README.md', ...fs.readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

  it('every relative link leads to a file of the repository, and every #anchor to a heading there', () => {
    const broken: string[] = [];
    for (const file of files) {
      const text = read(file).replace(/^```[\s\S]*?^```/gm, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        const [p, anchor] = target.split('#') as [string, string | undefined];
        const resolved = p === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), p));
        if (!fs.existsSync(path.join(REPO, resolved))) {
          broken.push(`${file}: ${target} (no ${resolved})`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !anchorsOf(read(resolved)).has(anchor)) broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('docs/README.md lists every file of docs/', () => {
    const index = read('docs/README.md');
    const missing = files.filter((f) => f.startsWith('docs/') && f !== 'docs/README.md').filter((f) => !index.includes(`](${path.posix.basename(f)})`));
    expect(missing).toEqual([]);
  });
});
