import type { Figure, Unavailable } from '../../runtime/metrics/index.ts';
import { formatBytes } from '../format.ts';
import { t, type MessageKey } from '../i18n/index.ts';

/** Re-exported under the short names the metrics cards use; one implementation in ../format.ts. */
export { formatMs as ms, formatPercent as percent } from '../format.ts';

const REASONS: Record<Unavailable, MessageKey> = {
  unsupported: 'metrics.na.unsupported',
  'not-isolated': 'metrics.na.notIsolated',
  pending: 'metrics.na.pending',
  'no-worker': 'metrics.na.noWorker',
  starting: 'metrics.na.starting',
  failed: 'metrics.na.failed',
};

/** A memory figure, or the reason the browser does not give it. */
export function figure(f: Figure): string {
  return f.bytes === null ? t(REASONS[f.reason]) : formatBytes(f.bytes);
}
