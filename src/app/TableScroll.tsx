import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * The box of a table that may be wider than the screen: its figures stay whole and it scrolls
 * sideways here (styles.css), so the page itself never does. While it does, keyboard users can
 * focus it to scroll it (a box that fits is no Tab stop), and screen readers name it by `label`.
 */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    // The box's width and its table's: either changes whether the table fits.
    const observer = new ResizeObserver(() => setScrolls(element.scrollWidth > element.clientWidth));
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return <div ref={box} class="table-scroll" role="region" aria-label={label} tabIndex={scrolls ? 0 : undefined}>{children}</div>;
}
