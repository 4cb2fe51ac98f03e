import type { ComponentChildren } from 'preact';

/**
 * The box of a table that may be wider than the screen: its figures stay whole and it scrolls
 * sideways here (styles.css), so the page itself never does. Keyboard users can focus it to
 * scroll it, and screen readers name it by `label`.
 */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return <div class="table-scroll" role="region" aria-label={label} tabIndex={0}>{children}</div>;
}
