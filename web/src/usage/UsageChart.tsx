// Spending by day, one stacked bar per day and one colour per model, drawn by uPlot (a ~22 KB gzipped
// canvas chart with no dependencies): a y-axis with gridlines and values, day labels spaced to the
// chart's real width with today's always named, a tooltip on hover, tap or arrow keys, a legend whose
// buttons show and hide a model, and the same numbers as a table for screen readers and for anyone
// who prefers one.
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { currencySymbol, formatDay, formatInt, formatMoney, localDay } from '../shared/format';
import { pointAt, pointOnTap, walkDays } from '../shared/chart-pointer';
import { ModelName } from '../shared/ModelName';

export interface DaySeries {
  day: string;
  values: Record<string, number>;
}

const COLORS = ['#2563eb', '#db2777', '#059669', '#d97706', '#7c3aed', '#0891b2', '#dc2626', '#65a30d'];
const HEIGHT = 240;
/** Least room a day label needs, in CSS pixels: «23.11» plus a gap. */
const LABEL_PX = 46;
/** A model with a few tokens still gets a segment this share of the tallest day (the tooltip has the true number). */
const MIN_SHARE = 0.02;

/** Which days get a label: today always, then every `step`-th day going back, as many as fit. */
export function labelledDays(count: number, width: number): number[] {
  const fit = Math.max(2, Math.floor(width / LABEL_PX));
  const step = Math.max(1, Math.ceil(count / fit));
  const picked: number[] = [];
  for (let i = count - 1; i >= 0; i -= step) picked.push(i);
  return picked.reverse();
}

const AXIS_FONT = '12px system-ui, sans-serif';
let measuring: CanvasRenderingContext2D | null | undefined;

/**
 * The y-axis's width for its labels: the widest label in the axis font plus the gap uPlot keeps, so
 * «0,0000125 ₽» is never cut at the card's edge (a fixed width clipped it to «,0000125 ₽»).
 */
function axisSize(labels: readonly string[] | undefined, least: number): number {
  if (!labels || labels.length === 0) return least;
  measuring ??= document.createElement('canvas').getContext('2d');
  if (!measuring) return least;
  measuring.font = AXIS_FONT;
  const widest = Math.max(...labels.map((label) => measuring!.measureText(label).width));
  return Math.max(least, Math.ceil(widest) + 14);
}

/** A y-axis value: as short as it can be, «0,8 ₽», «1,25 ₽», «0,0004 ₽», every digit of uPlot's round steps. */
function axisMoney(value: number, currency: string | undefined): string {
  const options: Intl.NumberFormatOptions = { maximumSignificantDigits: 3 };
  try {
    return new Intl.NumberFormat('ru-RU', currency ? { ...options, style: 'currency', currency, currencyDisplay: 'narrowSymbol' } : options).format(value);
  } catch {
    return new Intl.NumberFormat('ru-RU', options).format(value);
  }
}

function dayLabel(day: string): string {
  return day === localDay(new Date()) ? 'сегодня' : formatDay(day);
}

export function UsageChart({ series, metric, currency }: { series: DaySeries[]; metric: 'cost' | 'tokens'; currency: string | undefined }) {
  const models = useMemo(() => [...new Set(series.flatMap((s) => Object.keys(s.values)))].sort(), [series]);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const shown = useMemo(() => models.filter((m) => !hidden.has(m)), [models, hidden]);
  const format = (value: number) => (metric === 'cost' ? formatMoney(value, currency, 'cost') : formatInt(value));
  const colorOf = useCallback((model: string) => COLORS[models.indexOf(model) % COLORS.length]!, [models]);
  const totals = series.map((s) => shown.reduce((sum, m) => sum + (s.values[m] ?? 0), 0));
  const max = Math.max(...series.map((s) => Object.values(s.values).reduce((a, b) => a + b, 0)), 0);
  const empty = max === 0;

  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const [width, setWidth] = useState(0);
  const [active, setActive] = useState<number | null>(null);
  const activeRef = useRef<number | null>(null);
  activeRef.current = active;

  useEffect(() => {
    const element = box.current;
    // An empty period renders no canvas box: the one a period with spending brings is measured when it appears.
    if (!element || empty) return;
    const observer = new ResizeObserver(() => setWidth(Math.floor(element.clientWidth)));
    observer.observe(element);
    setWidth(Math.floor(element.clientWidth));
    return () => observer.disconnect();
  }, [empty]);

  const ticks = useMemo(() => labelledDays(series.length, Math.max(width - 70, 100)), [series.length, width]);
  const tickText = useMemo(() => ticks.map((i) => dayLabel(series[i]!.day)), [ticks, series]);

  useEffect(() => {
    const element = box.current;
    if (!element || width === 0 || empty) return;
    // Bars are stacked here: each series is drawn to its running total, the tallest first, so the
    // shorter ones paint over its lower part. A tiny non-zero value is lifted to a visible sliver.
    const floor = max * MIN_SHARE;
    const xs = series.map((_, i) => i);
    const running = series.map(() => 0);
    const stacked = shown.map((model) =>
      series.map((s, i) => {
        const v = s.values[model] ?? 0;
        if (v > 0) running[i] = running[i]! + Math.max(v, floor);
        return v > 0 ? running[i]! : null;
      }),
    );
    const order = shown.map((_, i) => i).reverse();
    const data: uPlot.AlignedData = [xs, ...order.map((i) => stacked[i]!)];
    const bars = uPlot.paths.bars!({ size: [0.7, 48], align: 0 });
    const options: uPlot.Options = {
      width,
      height: HEIGHT,
      legend: { show: false },
      cursor: { y: false, points: { show: false }, drag: { x: false, y: false, setScale: false } },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      scales: { x: { time: false, range: [-0.5, series.length - 0.5] }, y: { range: (_u, _min, top) => [0, top * 1.08 || 1] } },
      axes: [
        {
          stroke: '#4b5563',
          grid: { show: false },
          ticks: { show: true, stroke: '#d1d5db' },
          splits: () => ticks,
          values: () => tickText,
          font: AXIS_FONT,
        },
        {
          stroke: '#4b5563',
          grid: { stroke: '#e5e7eb', width: 1 },
          ticks: { show: false },
          size: (_u, values) => axisSize(values, 40),
          values: (_u, splits) => splits.map((v) => (metric === 'cost' ? axisMoney(v, currency) : formatInt(v))),
          font: AXIS_FONT,
        },
      ],
      series: [{}, ...order.map((i) => ({ label: shown[i]!, fill: colorOf(shown[i]!), stroke: colorOf(shown[i]!), width: 0, paths: bars, points: { show: false } }))],
      hooks: { setCursor: [(u) => setActive(u.cursor.idx ?? null)] },
    };
    const pointed = activeRef.current;
    const chart = new uPlot(options, data, element);
    plot.current = chart;
    // A chart made anew (a resize, a model hidden) keeps pointing at the day the user chose.
    if (pointed !== null && pointed < series.length) pointAt(chart, pointed);
    const stopTaps = pointOnTap(chart);
    return () => {
      stopTaps();
      chart.destroy();
      plot.current = null;
    };
  }, [series, width, metric, currency, max, empty, shown, colorOf, ticks, tickText]);

  // Left and right arrows walk the days when the chart has the focus.
  const onKey = (event: KeyboardEvent<HTMLDivElement>) => walkDays(plot.current, event, active, series.length);

  if (empty) {
    return (
      <div className="chart chart-empty" data-testid="usage-chart">
        <p className="muted">Нет расходов за выбранный период.</p>
      </div>
    );
  }

  const title = metric === 'cost' ? 'Стоимость' : 'Токены';
  const day = active !== null ? series[active] : undefined;
  return (
    <figure className="chart" data-testid="usage-chart" aria-labelledby="usage-chart-caption">
      <ul className="legend" aria-label="Модели: нажмите, чтобы скрыть или показать">
        {models.map((model) => (
          <li key={model}>
            <button
              type="button"
              className="legend-item"
              aria-pressed={!hidden.has(model)}
              onClick={() =>
                setHidden((h) => {
                  const next = new Set(h);
                  if (next.has(model)) next.delete(model);
                  else next.add(model);
                  return next;
                })
              }
            >
              <span className="swatch" style={{ background: colorOf(model) }} aria-hidden="true" />
              <ModelName model={model} />
            </button>
          </li>
        ))}
      </ul>
      <div className="chart-plot">
        <div
          ref={box}
          className="chart-canvas"
          data-testid="usage-chart-canvas"
          data-ticks={tickText.join('|')}
          tabIndex={0}
          role="img"
          aria-label={`${title} по дням: столбцы по моделям. Стрелки влево и вправо выбирают день; те же числа — в таблице ниже.`}
          onKeyDown={onKey}
        />
        {day ? (
          <div className="chart-tooltip" role="status" data-testid="usage-chart-tooltip">
            <strong>{dayLabel(day.day) === 'сегодня' ? `Сегодня, ${formatDay(day.day)}` : formatDay(day.day)}</strong>: {format(totals[active!]!)}
            <ul>
              {shown
                .filter((m) => (day.values[m] ?? 0) > 0)
                .map((m) => (
                  <li key={m}>
                    <span className="swatch" style={{ background: colorOf(m) }} aria-hidden="true" />
                    {m}: {format(day.values[m]!)}
                  </li>
                ))}
            </ul>
          </div>
        ) : null}
      </div>
      <figcaption id="usage-chart-caption" className="hint">
        {title} по дням{metric === 'cost' && currency ? `, ${currencySymbol(currency)}` : ''}. Наведите или нажмите на столбец, чтобы увидеть числа.
      </figcaption>
      <details className="chart-table">
        <summary>Таблица по дням</summary>
        <div className="table-wrap">
          <table data-testid="usage-chart-table">
            <caption className="visually-hidden">{title} по дням и моделям</caption>
            <thead>
              <tr>
                <th scope="col">День</th>
                {shown.map((m) => (
                  <th key={m} scope="col" className="num">
                    {m}
                  </th>
                ))}
                <th scope="col" className="num">
                  Всего
                </th>
              </tr>
            </thead>
            <tbody>
              {series.map((s, i) => (
                <tr key={s.day}>
                  <th scope="row" className="row-head">
                    {dayLabel(s.day) === 'сегодня' ? `${formatDay(s.day)} (сегодня)` : formatDay(s.day)}
                  </th>
                  {shown.map((m) => (
                    <td key={m} className="num">
                      {s.values[m] ? format(s.values[m]) : '—'}
                    </td>
                  ))}
                  <td className="num">{format(totals[i]!)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
