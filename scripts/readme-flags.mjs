// Write README's "Flags of `crawl`" table from the option declarations (after a build;
// `npm run readme:flags` does both):
//   npx tsc -p tsconfig.json && node scripts/readme-flags.mjs
// test/unit/options.test.ts fails until README matches.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { default: Crawl } = await import(path.join(root, 'dist/src/commands/crawl.js'));
const { renderFlagTable, replaceFlagTable } = await import(path.join(root, 'dist/src/cli/flag-table.js'));
const file = path.join(root, 'README.md');
const before = fs.readFileSync(file, 'utf8');
const after = replaceFlagTable(before, renderFlagTable(Crawl));
if (after === before) console.log('README.md: flag table up to date');
else {
  fs.writeFileSync(file, after);
  console.log('README.md: flag table rewritten');
}
