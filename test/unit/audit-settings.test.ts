import { describe, expect, it } from 'vitest';
import { auditSettings } from '../../src/crawl/audit-settings.js';
import { resolveOptions } from '../../src/crawl/options.js';

describe('auditSettings: the note on how vitals were measured', () => {
  const note = (o: Record<string, unknown>): string | null => auditSettings(resolveOptions({ seeds: ['http://127.0.0.1:9/'], vitals: true, ...o }), 2).note;
  it('names the pages that can be in flight: the concurrency, or fewer when --max-pages is lower', () => {
    expect(note({ concurrency: 4 })).toMatch(/^vitals were measured with up to 4 pages in flight on 2 CPU cores: /);
    expect(note({ concurrency: 4, maxPages: 3 })).toMatch(/^vitals were measured with up to 3 pages in flight on 2 CPU cores: /);
  });
  it('says nothing when one page at a time is measured', () => {
    expect([note({ concurrency: 1 }), note({ concurrency: 4, maxPages: 1 }), note({ concurrency: 4, vitalsConcurrency: 1 })]).toEqual([null, null, null]);
  });
});
