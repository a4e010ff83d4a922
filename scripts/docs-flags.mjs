// Write docs/flags.md (every flag of every command) from the option declarations, after a
// build; `npm run docs:flags` does both:
//   npx tsc -p tsconfig.json && node scripts/docs-flags.mjs
// test/unit/docs-flags.test.ts fails until docs/flags.md matches.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { COMMANDS } = await import(path.join(root, 'dist/src/commands/index.js'));
const { renderFlagsDoc, FLAGS_DOC } = await import(path.join(root, 'dist/src/cli/flag-table.js'));
const file = path.join(root, FLAGS_DOC);
const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
const after = renderFlagsDoc(COMMANDS);
if (after === before) console.log(`${FLAGS_DOC}: up to date`);
else {
  fs.writeFileSync(file, after);
  console.log(`${FLAGS_DOC}: rewritten`);
}
