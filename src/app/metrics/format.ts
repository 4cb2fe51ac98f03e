import type { Figure, Unavailable } from '../../runtime/metrics/memory.ts';
import { t, type MessageKey } from '../i18n/index.ts';

/** Milliseconds with sensible precision; an empty statistic (NaN) shows as a dash. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : Math.round(value).toString();
}

export function bytes(value: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let v = value;
  let unit = 0;
  while (v >= 1024 && unit < units.length - 1) {
    v /= 1024;
    unit++;
  }
  return `${unit === 0 ? v : v.toFixed(1)} ${units[unit]}`;
}

export function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

const REASONS: Record<Unavailable, MessageKey> = {
  unsupported: 'metrics.na.unsupported',
  'not-isolated': 'metrics.na.notIsolated',
  pending: 'metrics.na.pending',
  'no-worker': 'metrics.na.noWorker',
  failed: 'metrics.na.failed',
};

/** A memory figure, or the reason the browser does not give it. */
export function figure(f: Figure): string {
  return f.bytes === null ? t(REASONS[f.reason]) : bytes(f.bytes);
}
