import { createHash } from 'node:crypto';

/**
 * File name (no folder) for the screenshot of a page: a readable slug of the canonical URL
 * (`[a-z0-9._-]` only, at most 100 bytes) plus the SHA-256 of the whole URL in hex, so names
 * never collide between two URLs, can never contain a path separator or `..` that escapes the
 * folder, and stay under 200 bytes (at most 100 + 1 + 64 + 4 = 169).
 * @param canonicalUrl - the record's `url`
 * @returns e.g. `127.0.0.1-8080-docs-intro-<64 hex>.png`
 */
export function screenshotFileName(canonicalUrl: string): string {
  const hash = createHash('sha256').update(canonicalUrl).digest('hex');
  const slug = canonicalUrl
    .replace(/^[a-z]+:\/\//i, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 100)
    .replace(/[-.]+$/g, '');
  return `${slug ? `${slug}-` : ''}${hash}.png`;
}
