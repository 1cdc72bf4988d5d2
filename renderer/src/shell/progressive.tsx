import { useCallback, useState, type CSSProperties } from 'react';

/** Lists at most this long render whole; longer ones render `FIRST_ROWS`, then more as the operator scrolls. */
export const WHOLE_UP_TO = 100;
/** Enough rows to fill more than a tall window (a row is ~50 px). */
export const FIRST_ROWS = 40;
const STEP = 60;
/** A row's height before it is rendered, for the placeholder that stands in for the rest. */
export const ROW_PX = 50;

/** How a list renders progressively: whole up to `whole` rows, else `first`, then `step` more at a time. */
export interface Steps {
  whole?: number;
  first?: number;
  step?: number;
  /** A selector for the scroll container the list scrolls in. */
  root?: string;
}

/**
 * Progressive rendering for a long list: how many of `total` rows to render now, and a ref for the
 * placeholder after them. When the placeholder comes within a view's height of the scrolled view
 * (the `root` scroll container, `main` unless told), more rows render; a row once rendered stays. Opening a page with
 * 500 rows so costs the rows in view, not five hundred (see docs/performance.md).
 */
export function useProgressive(
  total: number,
  { whole = WHOLE_UP_TO, first = FIRST_ROWS, step = STEP, root = 'main' }: Steps = {},
): {
  shown: number;
  more(el: HTMLElement | null): (() => void) | undefined;
  showAll(): void;
} {
  const [shown, setShown] = useState(total <= whole ? Infinity : first);
  // A new callback when `shown` changes re-observes the placeholder, so one still in view asks again.
  const more = useCallback(
    (el: HTMLElement | null) => {
      if (!el || typeof IntersectionObserver === 'undefined') return undefined;
      const observer = new IntersectionObserver(
        (entries) => {
          if (entries.some((e) => e.isIntersecting)) setShown((n) => Math.max(n, shown + step));
        },
        { root: el.closest(root), rootMargin: '100% 0px' },
      );
      observer.observe(el);
      return () => observer.disconnect();
    },
    [shown, step, root],
  );
  const showAll = useCallback(() => setShown(Infinity), []);
  return { shown: Math.min(shown, total), more, showAll };
}

/**
 * What stands in for the rows not rendered yet: their estimated height (so the scrollbar is about
 * right), and a button that renders them all, for the keyboard, a screen reader or find-in-page.
 */
export function PendingRows({
  rows,
  rowPx = ROW_PX,
  extraPx = 0,
  label,
  more,
  showAll,
  as: Tag = 'div',
}: {
  rows: number;
  /** One row's estimated height. */
  rowPx?: number;
  extraPx?: number;
  label: string;
  more(el: HTMLElement | null): (() => void) | undefined;
  showAll(): void;
  as?: 'div' | 'li';
}) {
  const style: CSSProperties = { height: rows * rowPx + extraPx };
  return (
    <Tag ref={more} className="pending-rows" data-pending="" style={style}>
      <button type="button" className="link" onClick={showAll}>
        {label}
      </button>
    </Tag>
  );
}
