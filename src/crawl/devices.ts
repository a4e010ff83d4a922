/**
 * Playwright's device table (`iPhone 13`, `Pixel 7` …), loaded on first use: only a crawl or a
 * check given a device name needs it, and loading Playwright takes most of a second. Modules that
 * check options import this instead of `playwright`, so that a usage error answers without it.
 * @module
 */
import { createRequire } from 'node:module';
import type { devices as PlaywrightDevices } from 'playwright';

/** One device's emulation settings, as Playwright describes them (viewport, user agent, touch, scale). */
export type DeviceDescriptor = (typeof PlaywrightDevices)[string];

let table: typeof PlaywrightDevices | null = null;

/**
 * Playwright's device descriptors by name; the first call loads Playwright (synchronously, through
 * `require`), later calls return the same table.
 * @returns the table, keyed by device name as Playwright spells it (case matters)
 */
export function deviceTable(): Readonly<Record<string, DeviceDescriptor>> {
  table ??= (createRequire(import.meta.url)('playwright') as { devices: typeof PlaywrightDevices }).devices;
  return table;
}

/**
 * The descriptor of a device name, or `undefined` for a name Playwright does not know.
 * @param name - a device name as Playwright spells it, e.g. `iPhone 13`
 */
export function deviceNamed(name: string): DeviceDescriptor | undefined {
  return deviceTable()[name];
}
