// The usage chart: one horizontal bar per row (a day, chat, person or model), stacked as uncached
// prompt, cached prompt and completion tokens, with the row's total at its end. Plain SVG drawn
// on the server: no script, no library, readable at 390 px (labels sit above their bars).
import type { AdminUsageRow } from '../../../src/core/admin.ts';
import { type Html, html } from './html.ts';
import { grouped } from './layout.ts';

// A narrow drawing: at 390 px it is shown near its own size, so its text stays readable.
const WIDTH = 400;
const ROW = 34;
const BAR = 14;
const LABEL_GAP = 14;
const TOTAL_SPACE = 70;
/** Where the first row's label sits (below the legend). */
const TOP = 40;

export function usageChart(rows: readonly AdminUsageRow[], label: (row: AdminUsageRow) => string): Html {
  if (rows.length === 0) return html``;
  const max = Math.max(1, ...rows.map((r) => r.totalTokens));
  const scale = (WIDTH - TOTAL_SPACE) / max;
  const height = TOP + rows.length * ROW;
  const bars = rows.map((row, i) => {
    const y = TOP + i * ROW;
    const uncached = Math.max(0, row.promptTokens - row.cachedTokens);
    const parts = [
      { cls: 'prompt', value: uncached, name: 'prompt (uncached)' },
      { cls: 'cached', value: row.cachedTokens, name: 'cached prompt' },
      { cls: 'completion', value: row.completionTokens, name: 'completion' },
    ];
    let x = 0;
    const rects = parts.map((part) => {
      const w = part.value * scale;
      const rect = html`<rect class="${part.cls}" x="${x.toFixed(1)}" y="${y + LABEL_GAP - 10}" width="${w.toFixed(1)}" height="${BAR}"><title>${part.name}: ${grouped(part.value)}</title></rect>`;
      x += w;
      return rect;
    });
    return html`<g class="bar" data-key="${row.key}" data-total="${row.totalTokens}"><text class="label" x="0" y="${y - 2}">${label(row)}</text>${rects}<text class="total" x="${(x + 6).toFixed(1)}" y="${y + LABEL_GAP + 1}">${grouped(row.totalTokens)}</text></g>`;
  });
  return html`<figure class="chart"><svg viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="tokens per row: prompt, cached and completion">
<g class="legend"><rect class="prompt" x="0" y="2" width="10" height="10"></rect><text x="14" y="11">prompt</text><rect class="cached" x="80" y="2" width="10" height="10"></rect><text x="94" y="11">cached</text><rect class="completion" x="170" y="2" width="10" height="10"></rect><text x="184" y="11">completion</text></g>
${bars}
</svg></figure>`;
}
