import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { LONGEST_FIRST } from './tiers.mjs';

/**
 * Vitest's order, except that within a group the files of {@link LONGEST_FIRST} start first, longest first, whatever
 * their project. The browser and process tiers share two workers; vitest's own order puts a project's files after
 * the previous project's, and on a fresh clone (no results cache) it cannot know which file is long, so the two
 * longest files (several real CLI processes each) started last and ran alone at the end.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const rank = (f: TestSpecification): number => {
      const i = LONGEST_FIRST.indexOf(path.relative(root, f.moduleId).split(path.sep).join('/'));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    const group = (f: TestSpecification): number => f.project.config.sequence.groupOrder;
    // Array.prototype.sort is stable: files not in the list keep vitest's order after the listed ones.
    return [...sorted].sort((a, b) => group(a) - group(b) || rank(a) - rank(b));
  }
}
