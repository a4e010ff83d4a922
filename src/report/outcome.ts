/**
 * The outcome a page record counts as, shared by the metrics (`spacrawl_pages_total{outcome}`)
 * and the JSON log, in a module of its own so that the JSON log does not load prom-client.
 * @module
 */
import { isErrorPage, isPage, type PageRecord } from '../model/record.js';

/** What a page record counts as in `spacrawl_pages_total{outcome}`. */
export function outcomeOf(r: PageRecord): 'ok' | 'error_status' | 'network_error' | 'redirect' | 'skipped' | 'other' {
  if (r.skipped) return 'skipped';
  if (r.redirect) return 'redirect';
  if (r.error) return 'network_error';
  if (isErrorPage(r)) return 'error_status';
  if (isPage(r) && r.status !== null && r.status >= 200 && r.status < 300) return 'ok';
  return 'other';
}
