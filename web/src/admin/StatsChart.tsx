// The operator's daily figures as a chart: one line per figure (revenue, credits, spend, margin) over
// the UTC days of the period, drawn by uPlot as the usage page's chart is (usage/UsageChart.tsx), so
// a month of mostly empty days reads at a glance. A legend shows and hides a line; hover, tap or the arrow
// keys point at a day and its numbers appear beside the chart.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { pointOnTap, walkDays } from '../shared/chart-pointer';
import { currencySymbol, formatMoney, formatUtcDay } from '../shared/format';

export interface StatsDay {
  day: string;
  revenue: number;
  credits: number;
  spend: number;
  margin: number;
}

type Figure = Exclude<keyof StatsDay, 'day'>;

const FIGURES: { key: Figure; label: string; color: string }[] = [
  { key: 'revenue', label: 'Выручка', color: '#059669' },
  { key: 'credits', label: 'Начисления', color: '#d97706' },
  { key: 'spend', label: 'Расход', color: '#2563eb' },
  { key: 'margin', label: 'Маржа', color: '#7c3aed' },
];

const HEIGHT = 220;
/** Room one day label needs, in CSS pixels: «23.11» and a gap. */
const LABEL_PX = 52;

/** A y-axis value as short as it can be: «1,2 тыс. ₽», «0,5 ₽». */
function axisMoney(value: number, currency: string | undefined): string {
  const options: Intl.NumberFormatOptions = { maximumSignificantDigits: 3, notation: 'compact' };
  try {
    return new Intl.NumberFormat('ru-RU', currency ? { ...options, style: 'currency', currency, currencyDisplay: 'narrowSymbol' } : options).format(value);
  } catch {
    return new Intl.NumberFormat('ru-RU', options).format(value);
  }
}

const shortDay = (day: string) => formatUtcDay(day).slice(0, 5);

export function StatsChart({ days, currency }: { days: StatsDay[]; currency: string | undefined }) {
  const [hidden, setHidden] = useState<ReadonlySet<Figure>>(new Set());
  const [active, setActive] = useState<number | null>(null);
  const [width, setWidth] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shown = useMemo(() => FIGURES.filter((f) => !hidden.has(f.key)), [hidden]);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(Math.floor(element.clientWidth)));
    observer.observe(element);
    setWidth(Math.floor(element.clientWidth));
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const element = box.current;
    if (!element || width === 0 || days.length === 0) return;
    const step = Math.max(1, Math.ceil(days.length / Math.max(2, Math.floor((width - 70) / LABEL_PX))));
    const ticks = days.map((_, i) => i).filter((i) => (days.length - 1 - i) % step === 0);
    const options: uPlot.Options = {
      width,
      height: HEIGHT,
      legend: { show: false },
      cursor: { y: false, points: { size: 7 }, drag: { x: false, y: false, setScale: false } },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      scales: { x: { time: false, range: [-0.3, days.length - 0.7] }, y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
      axes: [
        { stroke: '#4b5563', grid: { show: false }, splits: () => ticks, values: () => ticks.map((i) => shortDay(days[i]!.day)), font: '12px system-ui, sans-serif' },
        {
          stroke: '#4b5563',
          grid: { stroke: '#e5e7eb', width: 1 },
          ticks: { show: false },
          size: 70,
          values: (_u, splits) => splits.map((v) => axisMoney(v, currency)),
          font: '12px system-ui, sans-serif',
        },
      ],
      series: [{}, ...shown.map((f) => ({ label: f.label, stroke: f.color, width: 2, points: { show: days.length <= 62, size: 4, fill: f.color } }))],
      hooks: { setCursor: [(u) => setActive(u.cursor.idx ?? null)] },
    };
    const data: uPlot.AlignedData = [days.map((_, i) => i), ...shown.map((f) => days.map((d) => d[f.key]))];
    const chart = new uPlot(options, data, element);
    plot.current = chart;
    const stopTaps = pointOnTap(chart);
    return () => {
      stopTaps();
      chart.destroy();
      plot.current = null;
    };
  }, [days, width, currency, shown]);

  const onKey = (event: KeyboardEvent<HTMLDivElement>) => walkDays(plot.current, event, active, days.length);

  const day = active !== null ? days[active] : undefined;
  return (
    <figure className="chart" data-testid="stats-chart" aria-labelledby="stats-chart-caption">
      <ul className="legend" aria-label="Показатели: нажмите, чтобы скрыть или показать">
        {FIGURES.map((f) => (
          <li key={f.key}>
            <button
              type="button"
              className="legend-item"
              aria-pressed={!hidden.has(f.key)}
              onClick={() =>
                setHidden((h) => {
                  const next = new Set(h);
                  if (next.has(f.key)) next.delete(f.key);
                  else next.add(f.key);
                  return next;
                })
              }
            >
              <span className="swatch" style={{ background: f.color }} aria-hidden="true" />
              {f.label}
            </button>
          </li>
        ))}
      </ul>
      <div className="chart-plot">
        <div
          ref={box}
          className="chart-canvas stats-canvas"
          // Until the resize observer redraws it, a chart drawn for a wider window is clipped rather than
          // widening the page (a phone turned, a window narrowed).
          style={{ overflow: 'hidden' }}
          data-testid="stats-chart-canvas"
          tabIndex={0}
          role="img"
          aria-label="Выручка, начисления, расход и маржа по дням (сутки с 03:00 по московскому времени). Стрелки влево и вправо выбирают день; те же числа — в таблице ниже."
          onKeyDown={onKey}
        />
        {day ? (
          <div className="chart-tooltip" role="status" data-testid="stats-chart-tooltip">
            <strong>{formatUtcDay(day.day)}</strong>
            <ul>
              {shown.map((f) => (
                <li key={f.key}>
                  <span className="swatch" style={{ background: f.color }} aria-hidden="true" />
                  {f.label}: {formatMoney(day[f.key], currency, 'amount')}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </div>
      <figcaption id="stats-chart-caption" className="hint">
        По дням, сутки с 03:00 по московскому времени{currency ? `, ${currencySymbol(currency)}` : ''}. Наведите или нажмите на график, чтобы увидеть числа дня.
      </figcaption>
    </figure>
  );
}
