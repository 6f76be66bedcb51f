// The admin pages' health: what `parley status` reads (processes, receivers, sessions running,
// pending approvals, queues), the model's state as the ready block describes it, the database,
// and the MCP servers' connections.
import { readStatus } from '../cli/status.ts';
import type { AdminHealth } from '../core/admin.ts';
import type { ModelHealth } from '../llm/model-health.ts';
import { describeModelState, modelStateFix } from '../llm/model-state.ts';
import type { McpServerStatus } from '../mcp/manager.ts';
import { redactUrl } from '../store/errors.ts';
import type { Store } from '../store/store.ts';

export interface HealthSources {
  store: Store;
  modelHealth: ModelHealth;
  modelConfigured: boolean;
  mcp: () => McpServerStatus[];
}

export async function readHealth({ store, modelHealth, modelConfigured, mcp }: HealthSources): Promise<AdminHealth> {
  const now = new Date();
  const status = await readStatus(store, now);
  const alive = new Set(status.processes.map((p) => p.owner));
  const state = modelHealth.state;
  const fix = modelConfigured ? modelStateFix(state) : 'Set OPENAI_MODEL and OPENAI_BASE_URL (or OPENAI_API_KEY), then restart.';
  const target = store.target;
  return {
    at: now,
    processes: status.processes,
    receivers: status.receivers.map((r) => ({ ...r, alive: r.owner !== null && alive.has(r.owner) })),
    sessionsRunning: status.sessionsRunning,
    approvalsPending: status.approvalsPending,
    queued: status.queued,
    model: {
      where: modelHealth.where,
      state: modelConfigured ? describeModelState(state) : 'not configured',
      ok: modelConfigured && (state.kind === 'answering' || state.kind === 'reachable'),
      ...(fix ? { fix } : {}),
    },
    database: target.provider === 'sqlite' ? `SQLite ${target.file}` : `PostgreSQL ${redactUrl(target.url)}`,
    mcp: mcp().map((server) => ({
      name: server.name,
      transport: server.connectedVia ?? server.transport,
      state: server.state,
      tools: server.tools.filter((tool) => !tool.hidden).length,
      ...(server.error ? { error: server.error } : {}),
    })),
  };
}
