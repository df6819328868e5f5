// The dashboard's charts, drawn by uPlot (a small canvas chart library), in a lazy chunk of the console only. A chart
// is a picture of the table below it: it is announced as an image naming that table, which carries the figures.
import { useStore } from '@nanostores/react';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { DashboardShape } from '../../contract/ops/dashboard.ts';
import { toMajor } from '../../core/money.ts';
import { useT } from '../../i18n/index.ts';
import { $lang } from '../../stores/locale.ts';

interface Series {
  label: string;
  values: (number | null)[];
  stroke: string;
}

const COLOURS = ['#0b5cad', '#b35900', '#2e7d32', '#8e24aa'];

function Chart({
  title,
  days,
  series,
  format,
}: {
  title: string;
  days: string[];
  series: Series[];
  format: (v: number) => string;
}) {
  const t = useT();
  const box = useRef<HTMLDivElement>(null);
  // Drawn again only when the figures or their labels change (the props are new objects on every render).
  const latest = useRef({ days, series, format });
  latest.current = { days, series, format };
  const signature = JSON.stringify([days, series.map((s) => [s.label, s.values]), format(1234.5)]);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const { days, series, format } = latest.current;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: true },
        axes: [{}, { values: (_u, vals) => vals.map(format), size: 70 }],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.stroke,
            width: 2,
            value: (_u: uPlot, v: number | null) => (v == null ? '–' : format(v)),
          })),
        ],
      },
      [xs, ...series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [signature]);
  return (
    <figure className="ops-chart">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={t('ops.dashboard.chartLabel', { title })} />
    </figure>
  );
}

export default function DashboardCharts({ data, currencies }: { data: DashboardShape; currencies: string[] }) {
  const t = useT();
  const lang = useStore($lang);
  const days = data.days.map((d) => d.day);
  const count = (v: number) => v.toLocaleString(lang, { maximumFractionDigits: 0 });
  const pct = (v: number) => v.toLocaleString(lang, { style: 'percent', maximumFractionDigits: 1 });
  return (
    <div className="ops-charts">
      <Chart
        title={t('ops.dashboard.chart.rentals')}
        days={days}
        format={count}
        series={[
          { label: t('ops.dashboard.rentals'), values: data.days.map((d) => d.rentals), stroke: COLOURS[0]! },
          {
            label: t('ops.dashboard.returnsElsewhere'),
            values: data.days.map((d) => d.returnsElsewhere),
            stroke: COLOURS[1]!,
          },
          { label: t('ops.dashboard.failedEjects'), values: data.days.map((d) => d.failedEjects), stroke: COLOURS[2]! },
        ]}
      />
      <Chart
        title={t('ops.dashboard.chart.utilisation')}
        days={days}
        format={pct}
        series={[
          { label: t('ops.dashboard.utilisation'), values: data.days.map((d) => d.utilisation), stroke: COLOURS[0]! },
        ]}
      />
      {currencies.map((c) => (
        <Chart
          key={c}
          title={t('ops.dashboard.revenueIn', { currency: c })}
          days={days}
          format={(v) => v.toLocaleString(lang, { style: 'currency', currency: c })}
          series={[
            {
              label: t('ops.dashboard.revenue'),
              stroke: COLOURS[3]!,
              values: days.map((d) =>
                toMajor(data.revenue.find((r) => r.day === d && r.currency === c)?.amount ?? 0, c),
              ),
            },
          ]}
        />
      ))}
    </div>
  );
}
