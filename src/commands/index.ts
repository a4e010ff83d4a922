import Crawl from './crawl.js';
import Demo from './demo.js';

/** oclif's explicit command table (package.json `oclif.commands`). */
export const COMMANDS = {
  crawl: Crawl,
  demo: Demo,
};
