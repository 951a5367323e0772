// A stacked bar chart of one metric by day, one colour per model, drawn as SVG. Each bar has a title
// (read by screen readers and shown on hover) with the day's numbers per model.
import { formatDay, formatInt, formatMoney } from '../format';

export interface DaySeries {
  day: string;
  values: Record<string, number>;
}

const COLORS = ['#2563eb', '#db2777', '#059669', '#d97706', '#7c3aed', '#0891b2', '#dc2626', '#65a30d'];
const HEIGHT = 180;
const BAR_GAP = 0.25;

export function UsageChart({ series, metric }: { series: DaySeries[]; metric: 'cost' | 'tokens' }) {
  const models = [...new Set(series.flatMap((s) => Object.keys(s.values)))].sort();
  const colorOf = (model: string) => COLORS[models.indexOf(model) % COLORS.length]!;
  const totals = series.map((s) => Object.values(s.values).reduce((a, b) => a + b, 0));
  const max = Math.max(...totals, 0);
  const format = metric === 'cost' ? formatMoney : formatInt;
  const width = Math.max(series.length * 24, 280);
  const barWidth = (width / Math.max(series.length, 1)) * (1 - BAR_GAP);
  const labelEvery = Math.ceil(series.length / 10);

  if (max === 0) {
    return (
      <div className="chart chart-empty" data-testid="usage-chart">
        <p className="muted">Нет расходов за выбранный период.</p>
      </div>
    );
  }

  return (
    <figure className="chart" data-testid="usage-chart">
      <svg
        viewBox={`0 0 ${width} ${HEIGHT + 20}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${metric === 'cost' ? 'Стоимость' : 'Токены'} по дням, максимум за день ${format(max)}`}
      >
        {series.map((s, i) => {
          const x = i * (width / series.length) + (width / series.length) * (BAR_GAP / 2);
          let y = HEIGHT;
          const detail = Object.entries(s.values)
            .map(([model, v]) => `${model}: ${format(v)}`)
            .join('\n');
          return (
            <g key={s.day}>
              <title>{`${formatDay(s.day)}: ${format(totals[i]!)}${detail ? `\n${detail}` : ''}`}</title>
              {models.map((model) => {
                const v = s.values[model] ?? 0;
                if (v === 0) return null;
                const h = Math.max((v / max) * (HEIGHT - 8), 1);
                y -= h;
                return <rect key={model} x={x} y={y} width={barWidth} height={h} fill={colorOf(model)} rx={2} />;
              })}
              {i % labelEvery === 0 ? (
                <text x={x + barWidth / 2} y={HEIGHT + 14} textAnchor="middle" className="chart-label">
                  {formatDay(s.day)}
                </text>
              ) : null}
            </g>
          );
        })}
        <line x1={0} x2={width} y1={HEIGHT} y2={HEIGHT} className="chart-axis" />
      </svg>
      <figcaption>
        <ul className="legend">
          {models.map((model) => (
            <li key={model}>
              <span className="swatch" style={{ background: colorOf(model) }} aria-hidden="true" />
              {model}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
