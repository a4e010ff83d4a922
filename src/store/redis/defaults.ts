/**
 * The shared store's defaults, in a module that imports nothing, so that the CLI's option table
 * (`src/cli/cli-options.ts`) can show them in `--help` without loading the Redis client.
 * @module
 */

/** Default time to keep reconnecting to a Redis that went away before giving up (ms). */
export const DEFAULT_REDIS_RETRY_MS = 30_000;

/** Default lease expiry (ms). Workers renew every third of it. */
export const DEFAULT_LEASE_TTL_MS = 60_000;
