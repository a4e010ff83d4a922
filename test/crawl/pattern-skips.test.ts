import { describe, expect, it } from 'vitest';
import { PatternSkips } from '../../src/crawl/pattern-skips.js';
import type { PageRecord } from '../../src/model/record.js';
import { Scope } from '../../src/url/scope.js';

const page = (externalLinks: string[]): PageRecord => ({ externalLinks }) as unknown as PageRecord;

describe('PatternSkips: what --include and --exclude left out, told once', () => {
  it('counts distinct linked URLs of the crawl\'s sites by the pattern that kept them out; other sites are the scope\'s', () => {
    const scope = new Scope(['http://a.test/'], { include: ['/docs/**'], exclude: ['/docs/private/**'] });
    const skips = new PatternSkips(scope);
    skips.note(page(['http://a.test/about', 'http://a.test/docs/private/x', 'http://b.test/docs/y']));
    skips.note(page(['http://a.test/about', 'http://a.test/blog/', 'http://a.test/docs/private/z']));
    expect(skips.summary()).toBe(
      "--include and --exclude left out 4 linked URLs of the crawl's sites: 2 matching --exclude, 2 matching no --include (e.g. http://a.test/about)",
    );
  });

  it('names only the flag that left URLs out, and says nothing when none did', () => {
    const include = new PatternSkips(new Scope(['http://a.test/'], { include: ['https://other.example/**'] }));
    include.note(page(['http://a.test/x']));
    expect(include.summary()).toBe("--include left out 1 linked URL of the crawl's sites (e.g. http://a.test/x)");
    const exclude = new PatternSkips(new Scope(['http://a.test/'], { exclude: ['/admin/**'] }));
    exclude.note(page(['http://b.test/admin/x']));
    expect(exclude.summary()).toBeNull();
    exclude.note(page(['http://a.test/admin/x', 'http://a.test/admin/y']));
    expect(exclude.summary()).toBe("--exclude left out 2 linked URLs of the crawl's sites (e.g. http://a.test/admin/x)");
  });
});
