import Crawl from './crawl.js';
import Demo from './demo.js';
import Diff from './diff.js';
import Export from './export.js';
import Login from './login.js';
import Robots from './robots.js';
import Rules from './rules.js';
import Status from './status.js';

/** oclif's explicit command table (package.json `oclif.commands`). */
export const COMMANDS = {
  crawl: Crawl,
  demo: Demo,
  diff: Diff,
  export: Export,
  login: Login,
  robots: Robots,
  rules: Rules,
  status: Status,
};
