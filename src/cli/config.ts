import { describeFsError } from '../util/files.js';
import { jsonErrorAt } from '../util/json-error.js';
import { nearestName } from './suggest.js';
import fs from 'node:fs';
import path from 'node:path';
import { OptionsError } from '../crawl/options-error.js';

/** The part of an oclif flag definition the config loader needs. */
interface FlagDef {
  type: 'boolean' | 'option';
  multiple?: boolean;
  parse?: (input: string, ctx: never, opts: never) => Promise<unknown>;
  options?: readonly string[];
}

/** Default config file name, looked up in the working directory. */
export const CONFIG_FILE = 'spacrawl.config.json';

/**
 * Merge a JSON config file into parsed flags: each key is a flag name of `defs` (for `crawl`,
 * its flags, made from the option declarations), with a value in the flag's unit
 * (`"max-depth": 3`, `"exclude": ["/admin/"]`, `"max-retry-after": 30` seconds); flags given on
 * the command line win. Reads `configPath`, or
 * `./spacrawl.config.json` when present.
 * @throws OptionsError for an unreadable file, invalid JSON, an unknown flag or a value of the wrong type
 */
export async function applyConfig<T extends Record<string, unknown>>(
  defs: Record<string, unknown>,
  flags: T,
  argv: readonly string[],
  configPath: string | undefined,
): Promise<T> {
  const file = configPath ? path.resolve(configPath) : path.resolve(CONFIG_FILE);
  if (!configPath && !fs.existsSync(file)) return flags;
  let data: unknown;
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
    data = JSON.parse(text);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new OptionsError(`cannot read config ${file}: ${e.code ? describeFsError(e, 'read') : jsonErrorAt(e.message, text)}`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new OptionsError(`config ${file} must hold one JSON object of flag values`);
  const given = (name: string): boolean => argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const out: Record<string, unknown> = { ...flags };
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const def = defs[key] as FlagDef | undefined;
    if (!def || key === 'config' || key === 'json') {
      const near = nearestName(key, Object.keys(defs).filter((k) => k !== 'config' && k !== 'json'));
      throw new OptionsError(`config ${file}: unknown setting ${JSON.stringify(key)}${near ? ` (did you mean ${JSON.stringify(near)}?)` : ''}`);
    }
    if (given(key) || argv.includes(`--no-${key}`)) continue;
    const bad = (want: string): never => {
      throw new OptionsError(`config ${file}: ${key} must be ${want}, got ${JSON.stringify(value)}`);
    };
    if (def.type === 'boolean') {
      if (typeof value !== 'boolean') bad('true or false');
      out[key] = value;
      continue;
    }
    const one = async (v: unknown): Promise<unknown> => {
      if (typeof v !== 'string' && typeof v !== 'number') bad('a string or number');
      const text = String(v);
      if (def.options && !def.options.includes(text)) bad(`one of ${def.options.join(', ')}`);
      try {
        return def.parse ? await def.parse(text, {} as never, def as never) : text;
      } catch (err) {
        throw new OptionsError(`config ${file}: ${key}: ${err instanceof Error ? err.message.split('\n')[0]! : String(err)}`);
      }
    };
    if (def.multiple) {
      const list = Array.isArray(value) ? value : [value];
      out[key] = await Promise.all(list.map(one));
    } else out[key] = await one(value);
  }
  return out as T;
}
