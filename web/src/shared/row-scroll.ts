// A navigation bar that is one row scrolling sideways on a phone: the current item is brought into it.

/**
 * A ref callback for the current item of such a row: centres it whenever the row is wider than its box —
 * at once, and again when the row's box changes (a screen loaded on demand can turn a wrapping bar into
 * a scrolling row after the item is drawn). React runs the returned cleanup when the item stops being
 * current.
 */
export function intoView(item: HTMLLIElement | null): (() => void) | undefined {
  const list = item?.parentElement;
  if (!item || !list) return undefined;
  const centre = () => {
    if (list.scrollWidth <= list.clientWidth) return;
    const itemBox = item.getBoundingClientRect();
    const listBox = list.getBoundingClientRect();
    list.scrollLeft += itemBox.left - listBox.left - (listBox.width - itemBox.width) / 2;
  };
  centre();
  const observer = new ResizeObserver(centre);
  observer.observe(list);
  return () => observer.disconnect();
}
