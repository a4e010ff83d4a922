import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** spacrawl's version, read from package.json (dist/src/ and src/ are both two levels below it). */
export const VERSION: string = (() => {
  for (const p of ['../../package.json', '../package.json']) {
    try {
      const pkg = require(p) as { name?: string; version?: string };
      if (pkg.name === 'spacrawl' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
})();
