/**
 * The crawl-wide robots.txt cache in Redis: a robots.txt fetched by any worker is used by all
 * (one hash, `robots`, field = origin; the first writer wins).
 * @module
 */
import type { RobotsFetch, RobotsStore } from '../../url/robots.js';
import type { RedisConnection } from './connection.js';

/** The robots.txt store of one crawl. */
export function redisRobots(conn: RedisConnection): RobotsStore {
  const key = conn.key('robots');
  return {
    get: async (origin) => {
      const v = await conn.guard(() => conn.client.hget(key, origin));
      return v === null ? null : (JSON.parse(v) as RobotsFetch);
    },
    set: async (origin, fetched) => {
      await conn.guard(() => conn.client.hsetnx(key, origin, JSON.stringify(fetched)));
    },
  };
}
