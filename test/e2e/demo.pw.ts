import { expect, test } from '@playwright/test';
import { startDemoSite, DEMO_PAGES } from '../../src/demo/site.js';
import type { FixtureServer } from '../../fixtures/server.js';
import { crawl } from '../../src/index.js';
import type { PageRecord } from '../../src/index.js';

let site: FixtureServer;
let records: PageRecord[] = [];

test.beforeAll(async ({ browser }) => {
  site = await startDemoSite();
  for await (const r of crawl({ seeds: [`${site.origin}/`], browser, concurrency: 4 })) records.push(r);
});

test.afterAll(async () => {
  await site.close();
});

test('the server sends no links: only the rendered app has them', async ({ page, request }) => {
  const shell = await (await request.get(`${site.origin}/docs`)).text();
  expect(shell).not.toContain('<a ');
  await page.goto(`${site.origin}/docs`);
  await expect(page.getByRole('link', { name: 'Intro' })).toBeVisible();
});

test('every page the crawler reports is one a person reaches by clicking, with the same title', async ({ page }) => {
  const visited = records.filter((r) => r.skipped === null && r.status === 200 && r.redirectChain.length === 0);
  expect(visited.map((r) => new URL(r.url).pathname).sort()).toEqual(
    DEMO_PAGES.filter((p) => !['/old-pricing', '/blog/missing-post'].includes(p)).sort(),
  );
  for (const r of visited) {
    if (r.depth === 0) continue;
    // Open the referrer as a person would, click the link by its text, and compare titles.
    const link = records.find((x) => x.url === r.referrer)!.linkDetails.find((l) => l.url === r.url)!;
    await page.goto(r.referrer!);
    await page.getByRole('link', { name: link.text, exact: true }).first().click();
    await expect(page).toHaveURL(r.url);
    await expect(page).toHaveTitle(r.title!);
  }
});
