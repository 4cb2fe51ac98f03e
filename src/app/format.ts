import { formatNumber } from './i18n/index.ts';

const UNITS = ['kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/** Human-readable sizes in the current language (binary multiples, one decimal above a KB). */
export function formatBytes(bytes: number): string {
  // The long form: the short one does not inflect ("0 byte").
  if (bytes < 1024) return formatNumber(bytes, { style: 'unit', unit: 'byte', unitDisplay: 'long' });
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return formatNumber(value, { style: 'unit', unit: UNITS[unit], unitDisplay: 'short', minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/** A share in [0, 1] as a percentage (one decimal unless told otherwise). */
export function formatPercent(share: number, digits = 1): string {
  return formatNumber(share, { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Milliseconds with sensible precision; an empty statistic (NaN) shows as a dash. */
export function formatMs(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const digits = value < 10 ? 2 : value < 100 ? 1 : 0;
  return formatNumber(value, { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
