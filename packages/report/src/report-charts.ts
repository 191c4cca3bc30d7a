import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/**
 * Charts as SVG strings, rendered in Node at build time by Vega-Lite → Vega (`view.toSVG()`,
 * headless renderer: no browser, no canvas, no network — data is always inline).
 */

/** One bar of a rate chart. */
export interface RateBar {
  /** The run group (series / colour). */
  readonly run: string;
  /** The x category, e.g. `misuse + jailbreak`. */
  readonly column: string;
  /** Rate 0–1. */
  readonly rate: number;
  /** Wilson interval bounds, 0–1. */
  readonly low: number;
  readonly high: number;
  /** Judged trajectories (the rate's n). */
  readonly n: number;
}

/** One cell of the injection heat map. */
export interface HeatCell {
  readonly run: string;
  readonly vector: string;
  readonly goal: string;
  /** Rate 0–1; null when no run of the cell was judged. */
  readonly rate: number | null;
  /** `count/n` shown in the cell. */
  readonly label: string;
}

const baseConfig = {
  font: 'system-ui, -apple-system, "Segoe UI", sans-serif',
  view: { stroke: null },
  axis: { labelFontSize: 11, titleFontSize: 11, gridColor: '#e5e7eb' },
  legend: { labelFontSize: 11, titleFontSize: 11, labelLimit: 260 },
  title: { fontSize: 13, anchor: 'start' as const, fontWeight: 600 as const },
};

/** Renders a Vega-Lite spec to an SVG string. */
async function renderVegaLiteSvg(spec: TopLevelSpec): Promise<string> {
  const vegaSpec = compile(spec).spec;
  const view = new View(parse(vegaSpec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * Grouped bars (one group per column, one bar per run) with Wilson-interval error bars; the y
 * axis is a percentage 0–100.
 */
export async function rateBarChartSvg(
  bars: readonly RateBar[],
  { title, columns, runs }: { title: string; columns: readonly string[]; runs: readonly string[] },
): Promise<string> {
  const values = bars.map(bar => ({
    ...bar,
    percent: bar.rate * 100,
    lowPercent: bar.low * 100,
    highPercent: bar.high * 100,
  }));
  const x = {
    field: 'column',
    type: 'nominal' as const,
    sort: [...columns],
    title: null,
    axis: { labelAngle: 0 },
    scale: { domain: [...columns] },
  };
  const xOffset = { field: 'run', type: 'nominal' as const, sort: [...runs] };
  const spec: TopLevelSpec = {
    title,
    width: Math.max(300, columns.length * Math.max(110, runs.length * 28)),
    height: 180,
    data: { values },
    config: baseConfig,
    layer: [
      {
        mark: { type: 'bar', cornerRadiusEnd: 2 },
        encoding: {
          x,
          xOffset,
          y: {
            field: 'percent',
            type: 'quantitative',
            title: '%',
            scale: { domain: [0, 100] },
          },
          color: {
            field: 'run',
            type: 'nominal',
            title: 'run',
            sort: [...runs],
            scale: { domain: [...runs], scheme: 'tableau10' },
            legend: runs.length > 1 ? { orient: 'bottom' } : null,
          },
        },
      },
      {
        mark: { type: 'rule', color: '#111827', strokeWidth: 1 },
        encoding: {
          x,
          xOffset,
          y: { field: 'lowPercent', type: 'quantitative' },
          y2: { field: 'highPercent' },
        },
      },
    ],
  };
  return renderVegaLiteSvg(spec);
}

/**
 * Vector × goal heat map of a rate (red = high), one panel per run, `count/n` written in each
 * cell; cells that did not run stay empty.
 */
export async function heatMapSvg(
  cells: readonly HeatCell[],
  {
    title,
    vectors,
    goals,
    runs,
  }: {
    title: string;
    vectors: readonly string[];
    goals: readonly string[];
    runs: readonly string[];
  },
): Promise<string> {
  const values = cells.map(cell => ({
    ...cell,
    percent: cell.rate === null ? null : Math.round(cell.rate * 1000) / 10,
  }));
  const spec: TopLevelSpec = {
    title,
    data: { values },
    config: baseConfig,
    facet: {
      column: {
        field: 'run',
        type: 'nominal',
        sort: [...runs],
        title: null,
        header: { labelFontSize: 12, labelFontWeight: 600 as const },
      },
    },
    spec: {
      width: Math.max(120, goals.length * 34),
      height: Math.max(60, vectors.length * 24),
      encoding: {
        x: {
          field: 'goal',
          type: 'nominal',
          sort: [...goals],
          scale: { domain: [...goals] },
          title: 'goal',
          axis: { labelAngle: -40, labelLimit: 160 },
        },
        y: {
          field: 'vector',
          type: 'nominal',
          sort: [...vectors],
          scale: { domain: [...vectors] },
          title: 'vector',
        },
      },
      layer: [
        {
          mark: { type: 'rect', stroke: '#ffffff', strokeWidth: 1 },
          encoding: {
            color: {
              field: 'percent',
              type: 'quantitative',
              title: 'unsafe %',
              scale: { domain: [0, 100], scheme: 'reds' },
            },
          },
        },
        {
          mark: { type: 'text', fontSize: 10 },
          encoding: {
            text: { field: 'label', type: 'nominal' },
            color: {
              condition: { test: 'datum.percent > 55', value: '#ffffff' },
              value: '#111827',
            },
          },
        },
      ],
    },
    resolve: { scale: { color: 'shared' } },
  };
  return renderVegaLiteSvg(spec);
}

/** Histogram of the judge's violation step (0-based), one colour per run. */
export async function violationStepChartSvg(
  values: readonly { run: string; step: number }[],
  { title, runs }: { title: string; runs: readonly string[] },
): Promise<string> {
  const spec: TopLevelSpec = {
    title,
    width: 320,
    height: 160,
    data: { values: [...values] },
    config: baseConfig,
    mark: { type: 'bar' },
    encoding: {
      x: {
        field: 'step',
        type: 'ordinal',
        title: 'violation step (0-based)',
        axis: { labelAngle: 0 },
      },
      y: { aggregate: 'count', type: 'quantitative', title: 'trajectories' },
      color: {
        field: 'run',
        type: 'nominal',
        sort: [...runs],
        scale: { domain: [...runs], scheme: 'tableau10' },
        legend: runs.length > 1 ? { orient: 'bottom' } : null,
      },
      xOffset: { field: 'run', type: 'nominal', sort: [...runs] },
    },
  };
  return renderVegaLiteSvg(spec);
}
