// How a day is pointed at on the dashboard's uPlot charts (the usage chart and the operator's daily stats):
// a tap on a phone does what a hover does, and the arrow keys walk the days while the chart has the focus.
import type { KeyboardEvent } from 'react';
import type uPlot from 'uplot';

/** Lets a tap point at a day as a hover does; returns what undoes it. */
export function pointOnTap(chart: uPlot): () => void {
  const tap = (event: PointerEvent) => {
    // uPlot caches the plot's place on the page; after a scroll the tap's own mouse events need it fresh.
    chart.syncRect();
    const rect = chart.over.getBoundingClientRect();
    chart.setCursor({ left: event.clientX - rect.left, top: event.clientY - rect.top });
  };
  chart.over.addEventListener('pointerdown', tap);
  return () => chart.over.removeEventListener('pointerdown', tap);
}

/** Points at the day `index` (an x value of the chart: days are 0, 1, …). */
export function pointAt(chart: uPlot, index: number): void {
  chart.setCursor({ left: chart.valToPos(index, 'x'), top: chart.over.clientHeight / 2 });
}

/** Left and right arrows move the pointer one day, from the last day when none is pointed at yet. */
export function walkDays(chart: uPlot | null, event: KeyboardEvent<HTMLElement>, active: number | null, days: number): void {
  if (!chart || (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight')) return;
  event.preventDefault();
  const from = active ?? days;
  pointAt(chart, Math.min(days - 1, Math.max(0, from + (event.key === 'ArrowLeft' ? -1 : 1))));
}
