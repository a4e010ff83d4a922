import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import { helpText } from '../helpers/help.js';

// `spacrawl <command> --help` at 100 columns, committed: a change to a flag's name, default,
// description, choices or order shows up here as a diff to review (update with `npx vitest run -u`).
describe('--help of every command', () => {
  for (const [id, cls] of Object.entries(COMMANDS)) {
    it(id, async () => {
      await expect(await helpText(id, cls)).toMatchFileSnapshot(`./__snapshots__/help-${id}.txt`);
    });
  }
});
