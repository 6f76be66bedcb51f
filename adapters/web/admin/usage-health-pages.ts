// Usage (the figures of `parley usage`, per day, chat, person or model, as a chart and a table) and
// Health (what `parley status` shows, with the model's state and the MCP servers).
import { z } from 'zod';
import type { AdminUsageGrouping, AdminUsageRow } from '../../../src/core/admin.ts';
import { duration } from '../../../src/core/env.ts';
import { t } from '../../../src/core/i18n/index.ts';
import { type AdminContext, htmlPage, queryOf } from './context.ts';
import { html } from './html.ts';
import { grouped, page, table } from './layout.ts';
import { usageChart } from './usage-chart.ts';

const GROUPINGS = ['day', 'chat', 'person', 'model'] as const satisfies readonly AdminUsageGrouping[];
const WINDOWS = ['24h', '7d', '30d', '90d'];

const UsageQuery = z.object({
  since: z
    .string()
    .max(10)
    .default('7d')
    .refine((value) => {
      const parsed = duration(0).safeParse(value);
      return parsed.success && parsed.data > 0;
    }, 'expects a duration such as 24h or 7d'),
  by: z.enum(GROUPINGS).default('day'),
});

export async function usageData(a: AdminContext) {
  const { since, by } = queryOf(a.c, UsageQuery);
  const from = new Date(Date.now() - (duration(0).parse(since) as number));
  return { since, by, from, ...(await a.port.usage.grouped(by, from)) };
}

const label = (row: AdminUsageRow) => (row.name ? `${row.key} (${row.name})` : row.key);

export async function usagePage(a: AdminContext): Promise<Response> {
  const { since, by, from, rows, note } = await usageData(a);
  const sum = (field: 'turns' | 'promptTokens' | 'cachedTokens' | 'completionTokens' | 'totalTokens') =>
    rows.reduce((total, row) => total + row[field], 0);
  const priced = rows.some((row) => row.cost !== undefined);
  const body = html`<form method="get" action="/admin/usage" class="filters">
<label>${t(a.locale, 'webAdmin.usage.since')} <select name="since">${WINDOWS.map((w) => html`<option${w === since ? html` selected` : ''}>${w}</option>`)}</select></label>
<label>${t(a.locale, 'webAdmin.usage.by')} <select name="by">${GROUPINGS.map((g) => html`<option${g === by ? html` selected` : ''}>${g}</option>`)}</select></label>
<button type="submit">${t(a.locale, 'webAdmin.usage.show')}</button>
</form>
<p class="muted">Turns started since ${from.toISOString().slice(0, 16).replace('T', ' ')} UTC (as <code>parley usage --since ${since} --by ${by === 'model' ? 'day' : by}</code>).</p>
${note ? html`<p class="note">${note}</p>` : ''}
${usageChart(rows, label)}
${table(
  [by, 'turns', 'prompt', 'cached', 'completion', 'total', ...(priced ? ['cost'] : [])],
  [
    ...rows.map((row) => [
      label(row),
      row.turns,
      grouped(row.promptTokens),
      grouped(row.cachedTokens),
      grouped(row.completionTokens),
      grouped(row.totalTokens),
      ...(priced ? [row.cost?.toFixed(4) ?? ''] : []),
    ]),
    ...(rows.length
      ? [
          [
            html`<strong>${t(a.locale, 'webAdmin.usage.total')}</strong>`,
            sum('turns'),
            grouped(sum('promptTokens')),
            grouped(sum('cachedTokens')),
            grouped(sum('completionTokens')),
            grouped(sum('totalTokens')),
          ],
        ]
      : []),
  ],
  `No turns since ${from.toISOString()}.`,
  'usage',
)}`;
  return htmlPage(a.c, page({ locale: a.locale, title: t(a.locale, 'webAdmin.nav.usage'), section: '/admin/usage' }, body));
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export async function healthPage(a: AdminContext): Promise<Response> {
  const h = await a.port.health();
  const body = html`<h2>${t(a.locale, 'webAdmin.health.model')}</h2>
<p class="${h.model.ok ? 'ok' : 'problem'}">${h.model.where}: ${h.model.state}</p>
${h.model.fix ? html`<p class="muted">${h.model.fix}</p>` : ''}
<p class="muted">Database: ${h.database}</p>
<h2>${t(a.locale, 'webAdmin.health.processes')}</h2>
${table(
  ['process', 'host', 'pid', 'last heartbeat', 'channels'],
  h.processes.map((p) => [p.owner, p.host, p.pid, `${seconds(p.heartbeatAgeMs)} ago`, p.channels.join(', ')]),
  'No process is running.',
)}
<h2>${t(a.locale, 'webAdmin.health.receivers')}</h2>
${table(
  ['receiver', 'held by', 'token', 'lease until'],
  h.receivers.map((r) => [r.receiver, r.owner ? `${r.owner}${r.alive ? '' : ' (gone)'}` : '(free)', r.token, r.leaseUntil ?? '']),
  'No exclusive receiver (webhooks only).',
)}
<h2>${t(a.locale, 'webAdmin.health.queues')}</h2>
<p>Approvals pending: ${h.approvalsPending}. Queued messages: ${h.queued.map((q) => `${q.channel} ${q.messages}`).join(', ') || 'none'}.</p>
${table(
  ['session running', 'process', 'lease until'],
  h.sessionsRunning.map((s) => [s.key, s.owner, s.leaseUntil]),
  'No session is running a turn.',
)}
<h2>${t(a.locale, 'webAdmin.health.mcp')}</h2>
${table(
  ['server', 'transport', 'state', 'tools', 'error'],
  h.mcp.map((m) => [m.name, m.transport, m.state, m.tools, m.error ?? '']),
  'No MCP server configured (parley.config.yaml).',
)}
<p class="muted small">As of ${h.at.toISOString()}. <a href="/admin/health">Refresh</a></p>`;
  return htmlPage(a.c, page({ locale: a.locale, title: t(a.locale, 'webAdmin.nav.health'), section: '/admin/health' }, body));
}
