/**
 * Lighthouse's mobile throttling profile, applied to one tab over CDP while its vitals are
 * measured (`--vitals-throttle mobile`). The values are Lighthouse's own
 * (`core/config/constants.js`, `throttling.mobileSlow4G`, and its DevTools adjustment factors
 * for request-level throttling): 150 ms RTT and 1.6 Mbps down / 750 Kbps up, passed to
 * `Network.emulateNetworkConditions` as Lighthouse's `devtools` throttling does (latency × 3.75,
 * throughput × 0.9), and a 4× CPU slowdown (`Emulation.setCPUThrottlingRate`).
 *
 * `Network.emulateNetworkConditions` is deprecated in favour of `emulateNetworkConditionsByRule`,
 * but it is the one that throttles in Chromium 156 (the by-rule command was accepted and changed
 * nothing there), and it also sets `navigator.connection` as a throttled phone would see it.
 * Chromium applies the latency to a navigation before its request is sent: the document's
 * navigation-timing TTFB (what `web-vitals` reports) does not include it; its subresources,
 * and the page's LCP and FCP, do.
 * @module
 */
import type { CDPSession } from 'playwright';
import { withTimeout } from './timeout.js';

/** A throttling profile of `--vitals-throttle`. */
export type ThrottleProfile = 'none' | 'mobile';

/** Round-trip time of the mobile profile (ms). */
export const MOBILE_RTT_MS = 150;
/** Download throughput of the mobile profile (Kbit/s). */
export const MOBILE_DOWN_KBPS = 1.6 * 1024;
/** Upload throughput of the mobile profile (Kbit/s). */
export const MOBILE_UP_KBPS = 750;
/** CPU slowdown of the mobile profile (×). */
export const MOBILE_CPU_SLOWDOWN = 4;
/** Lighthouse's `DEVTOOLS_RTT_ADJUSTMENT_FACTOR`: request-level latency standing for packet-level RTT. */
const RTT_ADJUSTMENT = 3.75;
/** Lighthouse's `DEVTOOLS_THROUGHPUT_ADJUSTMENT_FACTOR`. */
const THROUGHPUT_ADJUSTMENT = 0.9;

/** `Network.emulateNetworkConditions` parameters of the mobile profile (latency in ms, throughput in bytes/s). */
export const MOBILE_NETWORK = Object.freeze({
  offline: false,
  latency: MOBILE_RTT_MS * RTT_ADJUSTMENT,
  downloadThroughput: ((MOBILE_DOWN_KBPS * 1024) / 8) * THROUGHPUT_ADJUSTMENT,
  uploadThroughput: ((MOBILE_UP_KBPS * 1024) / 8) * THROUGHPUT_ADJUSTMENT,
});

/** No network throttling (CDP's "disabled" values). */
const NO_NETWORK = Object.freeze({ offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

/**
 * Apply `profile` to the tab of `cdp` (its Network domain must be enabled), or lift it with `none`.
 * @throws CallTimeoutError or a protocol error when the browser does not answer
 */
export async function applyThrottle(cdp: CDPSession, profile: ThrottleProfile): Promise<void> {
  const mobile = profile === 'mobile';
  await withTimeout(
    Promise.all([
      cdp.send('Emulation.setCPUThrottlingRate', { rate: mobile ? MOBILE_CPU_SLOWDOWN : 1 }),
      cdp.send('Network.emulateNetworkConditions', mobile ? { ...MOBILE_NETWORK } : { ...NO_NETWORK }),
    ]),
    5_000,
    'setting the throttling',
  );
}
