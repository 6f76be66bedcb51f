// `parley status`: the processes alive (heartbeat age), who holds each exclusive receiver (and its
// fencing token), sessions running a turn (live leases), approvals pending and queued inbound
// messages per channel. `--json` prints the StatusSchema shape.
import type { Command } from 'commander';
import { z } from 'zod';
import { dateColumn, intColumn } from '../store/sql/columns.ts';
import type { Store } from '../store/store.ts';
import type { CliContext } from './context.ts';

const StatusSchema = z.object({
  at: z.string(),
  processes: z.array(
    z.object({ owner: z.string(), host: z.string(), pid: z.number(), heartbeatAgeMs: z.number(), channels: z.array(z.string()) }),
  ),
  receivers: z.array(
    z.object({ receiver: z.string(), owner: z.string().nullable(), token: z.number(), leaseUntil: z.string().nullable() }),
  ),
  sessionsRunning: z.array(z.object({ key: z.string(), owner: z.string(), leaseUntil: z.string() })),
  approvalsPending: z.number(),
  queued: z.array(z.object({ channel: z.string(), messages: z.number() })),
});
type Status = z.infer<typeof StatusSchema>;

const leaseRow = z.object({ key: z.string(), leaseOwner: z.string(), leaseUntil: dateColumn });
const queueRow = z.object({ channel: z.string(), messages: intColumn });

export async function readStatus(store: Store, now: Date): Promise<Status> {
  const [processes, receivers, leases, queues, approvals] = await Promise.all([
    store.processes.list(),
    store.receivers.list(),
    store.sql.all(
      `SELECT "key", "leaseOwner", "leaseUntil" FROM "Session" WHERE "leaseOwner" IS NOT NULL AND "leaseUntil" > $1 ORDER BY "key"`,
      [now],
    ),
    store.sql.all(
      `SELECT "channel", COUNT(*) AS "messages" FROM "InboundEvent" WHERE "status" = 'queued' GROUP BY "channel" ORDER BY "channel"`,
    ),
    store.approvals.list({ status: 'pending', limit: 10_000 }),
  ]);
  return StatusSchema.parse({
    at: now.toISOString(),
    processes: processes.map((p) => ({
      owner: p.owner,
      host: p.host,
      pid: p.pid,
      heartbeatAgeMs: now.getTime() - p.heartbeatAt.getTime(),
      channels: p.channels,
    })),
    receivers: receivers.map((r) => ({
      receiver: r.receiver,
      owner: r.owner ?? null,
      token: r.token,
      leaseUntil: r.leaseUntil?.toISOString() ?? null,
    })),
    sessionsRunning: leases.map((raw) => {
      const row = leaseRow.parse(raw);
      return { key: row.key, owner: row.leaseOwner, leaseUntil: row.leaseUntil.toISOString() };
    }),
    approvalsPending: approvals.length,
    queued: queues.map((raw) => queueRow.parse(raw)),
  });
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function registerStatusCommand(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .description('Processes alive, receiver holders, sessions running, approvals pending, queued messages')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      const store = await ctx.store();
      const now = new Date();
      const status = await readStatus(store, now);
      if (options.json) return ctx.json(status);
      const alive = new Set(status.processes.map((p) => p.owner));
      ctx.line('Processes');
      ctx.table(
        ['process', 'host', 'pid', 'last heartbeat', 'channels'],
        status.processes.map((p) => [p.owner, p.host, p.pid, `${seconds(p.heartbeatAgeMs)} ago`, p.channels.join(', ')]),
        'No process is running.',
      );
      ctx.line('Receivers (one process each)');
      ctx.table(
        ['receiver', 'held by', 'token', 'lease until'],
        status.receivers.map((r) => [
          r.receiver,
          r.owner ? `${r.owner}${alive.has(r.owner) ? '' : ' (gone)'}` : '(free)',
          r.token,
          r.leaseUntil ?? '',
        ]),
        'No exclusive receiver (webhooks only).',
      );
      ctx.line('Sessions running');
      ctx.table(
        ['session', 'process', 'lease until'],
        status.sessionsRunning.map((s) => [s.key, s.owner, s.leaseUntil]),
        'None.',
      );
      const queued = status.queued.map((q) => `${q.channel} ${q.messages}`).join(', ');
      ctx.line(`Approvals pending: ${status.approvalsPending}. Queued messages: ${queued || 'none'}.`);
    });
}
