import { type Html, html } from "../html.js";

/**
 * Small bar charts drawn on the server as SVG: no script, readable by a
 * screen reader through their title and a table of the same numbers beside
 * them (the charts are for looking, the table for reading).
 */

export interface Bar {
  label: string;
  value: number;
  /** A part of value drawn in the second colour (successes of all jobs). */
  part?: number | undefined;
}

export function barChart(input: {
  title: string;
  description: string;
  bars: Bar[];
  format: (value: number) => string;
}): Html {
  const width = 300;
  const height = 100;
  const max = Math.max(1e-9, ...input.bars.map((bar) => bar.value));
  const step = width / Math.max(1, input.bars.length);
  const barWidth = Math.max(1, step * 0.8);
  const titleId = `chart-${input.title.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`;
  return html`<svg class="chart" viewBox="0 0 ${width} ${height + 14}" role="img" aria-labelledby="${titleId}">
<title id="${titleId}">${input.title}: ${input.description}</title>
<line class="axis" x1="0" y1="${height}" x2="${width}" y2="${height}"></line>
${input.bars.map((bar, i) => {
  const x = (i * step).toFixed(1);
  const h = (bar.value / max) * height;
  const p = ((bar.part ?? 0) / max) * height;
  return html`<g><title>${bar.label}: ${input.format(bar.value)}</title><rect class="bar" x="${x}" y="${(height - h).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${h.toFixed(1)}"></rect>${
    bar.part
      ? html`<rect class="bar2" x="${x}" y="${(height - p).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${p.toFixed(1)}"></rect>`
      : ""
  }</g>`;
})}
<text x="0" y="${height + 12}">${input.bars[0]?.label ?? ""}</text>
<text x="${width}" y="${height + 12}" text-anchor="end">${input.bars.at(-1)?.label ?? ""}</text>
</svg>`;
}
