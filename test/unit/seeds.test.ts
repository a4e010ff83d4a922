import { describe, expect, it } from 'vitest';
import { noSeedLine } from '../../src/cli/seeds.js';
import { blankRecord } from '../../src/model/record.js';

/** The record of a seed whose host did not answer, not even for robots.txt (`cause`: Node's error text). */
function unreachable(url: string, cause: string) {
  const r = blankRecord(url, url, 0, null);
  r.attempts = 0;
  r.error = { code: 'network', message: `the host could not be reached, not even for robots.txt (${cause}): nothing was requested` };
  return r;
}

describe('noSeedLine', () => {
  it('names what to check for a refused connection and an unknown host, and nothing for other causes', () => {
    expect(noSeedLine([unreachable('http://127.0.0.1:9/', 'connect ECONNREFUSED 127.0.0.1:9')])).toBe(
      'spacrawl: no seed could be crawled: http://127.0.0.1:9/ cannot be reached (connect ECONNREFUSED 127.0.0.1:9), not even its robots.txt: is the server running, on that port?',
    );
    expect(noSeedLine([unreachable('http://nohost.invalid/', 'getaddrinfo ENOTFOUND nohost.invalid')])).toBe(
      'spacrawl: no seed could be crawled: http://nohost.invalid/ cannot be reached (getaddrinfo ENOTFOUND nohost.invalid), not even its robots.txt: is the host name right?',
    );
    expect(noSeedLine([unreachable('http://10.0.0.1/', 'connect ETIMEDOUT 10.0.0.1:80')])).toBe(
      'spacrawl: no seed could be crawled: http://10.0.0.1/ cannot be reached (connect ETIMEDOUT 10.0.0.1:80), not even its robots.txt',
    );
  });
});
