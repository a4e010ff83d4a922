/**
 * Zoo cases Z09–Z15: robots.txt as real sites write it (see README.md).
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureServer } from '../../fixtures/server.js';
import { ROBOTS_CASES, startRobotsSite } from '../../fixtures/zoo/robots.js';
import { type PageRecord } from '../../src/index.js';
import { sharedBrowser } from '../helpers/browser.js';
import { runInProcess } from '../helpers/cli.js';
import { expectWellFormed, pathOf } from '../helpers/records.js';
import { summary, zooCrawl } from './helpers.js';

let browser: Browser;
const servers: FixtureServer[] = [];

/** `spacrawl robots URL`, in-process: exit code and stdout. */
async function explain(url: string): Promise<{ code: number; stdout: string }> {
  const r = await runInProcess(['robots', url]);
  return { code: r.code ?? -1, stdout: r.stdout };
}

beforeAll(async () => {
  browser = await sharedBrowser();
});
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** Crawl one case's origin from `/`; returns the records and the page requests (documents) the server saw. */
async function run(id: keyof typeof ROBOTS_CASES & string): Promise<{ records: PageRecord[]; site: FixtureServer; asked: string[] }> {
  const site = await startRobotsSite(id);
  servers.push(site);
  const records = await zooCrawl(browser, `${site.origin}/`);
  expectWellFormed(records);
  return { records, site, asked: site.documents().map((d) => d.target).sort() };
}

/** `path: outcome` with outcome `200 title`, or `robots` for a robots skip. */
function outcomes(records: readonly PageRecord[]): string[] {
  return summary(records).map((r) => `${r.path}: ${r.skipped ?? `${r.status} ${r.title}`}`);
}

describe('zoo: robots.txt', () => {
  it('Z09 a UTF-8 BOM before "User-agent" does not cost the first group', async () => {
    const { records, asked } = await run('z09');
    expect(outcomes(records)).toEqual(['/: 200 z09 index', '/open/page: 200 Page /open/page', '/private/page: robots']);
    expect(asked).toEqual(['/', '/open/page']);
  });

  it('Z10 %7E equals "~" and %61 equals "a" (URL and rule), UTF-8 escapes equal raw UTF-8, %2F stays a different character', async () => {
    const { records, asked } = await run('z10');
    expect(outcomes(records)).toEqual([
      '/: 200 z10 index',
      '/a%2Fb: 200 Page /a%2Fb',
      '/archive/page: robots',
      '/b%C3%BCcher/page: robots',
      '/open/page: 200 Page /open/page',
      '/~staff/other: robots',
      '/~staff/page: robots',
    ]);
    expect(asked).toEqual(['/', '/a%2Fb', '/open/page']);
  });

  it('Z10 `spacrawl robots` names the rule that blocks /%7Estaff/page', async () => {
    const site = await startRobotsSite('z10');
    servers.push(site);
    const { stdout } = await explain(`${site.origin}/%7Estaff/page`);
    expect(stdout.split('\n').slice(0, 2)).toEqual([`disallowed: ${site.origin}/%7Estaff/page for agent "spacrawl"`, '  rule: line 2: Disallow: /~staff/']);
  });

  it('Z11 "User-Agent: SpaCrawl" is our group (case-insensitive) and replaces the * group', async () => {
    const { records, asked } = await run('z11');
    expect(outcomes(records)).toEqual(['/: 200 z11 index', '/hidden/page: robots', '/members/page: 200 Page /members/page', '/open/page: 200 Page /open/page']);
    expect(asked).toEqual(['/', '/members/page', '/open/page']);
  });

  it('Z12 an empty "Disallow:" in our group allows everything although * disallows /', async () => {
    const { records, asked } = await run('z12');
    expect(outcomes(records)).toEqual(['/: 200 z12 index', '/first: 200 Page /first', '/second/page: 200 Page /second/page']);
    expect(asked).toEqual(['/', '/first', '/second/page']);
  });

  it('Z13 "Disallow: /jobs?" blocks /jobs?page=2 but not /jobs', async () => {
    const { records, asked } = await run('z13');
    expect(outcomes(records)).toEqual(['/: 200 z13 index', '/jobs: 200 Page /jobs', '/jobs?page=2: robots']);
    expect(asked).toEqual(['/', '/jobs']);
  });

  it('Z14 a 403 robots.txt is "unavailable": everything may be crawled, no robots error', async () => {
    const { records, asked } = await run('z14');
    expect(outcomes(records)).toEqual(['/: 200 z14 index', '/open/page: 200 Page /open/page']);
    expect(records.filter((r) => r.error !== null)).toEqual([]);
    expect(asked).toEqual(['/', '/open/page']);
  });

  it('Z15 a redirect to a disallowed URL is not followed: the target is never requested', async () => {
    const { records, site, asked } = await run('z15');
    expect(asked).toEqual(['/', '/go', '/open/page']);
    const go = records.find((r) => pathOf(r.url) === '/go')!;
    expect({ skipped: go.skipped, title: go.title, finalUrl: go.finalUrl, chain: go.redirectChain }).toEqual({
      skipped: 'robots',
      title: null,
      finalUrl: `${site.origin}/private/secret`,
      chain: [{ url: `${site.origin}/go`, status: 302, kind: 'http' }],
    });
  });
});
