// `parley approvals approve|deny <code>`: an operator decides from the command line, through the
// approvals service's exactly-once decision (a button pressed at the same moment gets "already
// approved by ..."), audited as the operator. This process has no adapter: the running bot notices
// the decision (a NOTIFY on PostgreSQL; SQLite's data_version on its next heartbeat), edits the
// prompt to show it and continues the turn.
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { z } from 'zod';
import { type Actor, ApprovalService } from '../approvals/service.ts';
import { WAKEUP_CHANNEL } from '../cluster/wakeups-pg.ts';
import { silentLogger } from '../log.ts';
import { CliError, type CliContext } from './context.ts';

const OptionsSchema = z.object({ reason: z.string().trim().min(1).max(500).optional(), json: z.boolean().optional() });

function operator(env: Record<string, string | undefined>): Actor {
  let name = env.USER || env.USERNAME || '';
  try {
    name ||= userInfo().username;
  } catch {
    // No user entry (some containers): the CLI alone names the operator.
  }
  return { channel: 'cli', id: name || 'operator', displayName: name ? `${name} (parley CLI)` : 'parley CLI' };
}

export function registerDecisionCommands(approvals: Command, ctx: CliContext): void {
  for (const choice of ['approve', 'deny'] as const) {
    approvals
      .command(`${choice} <code>`)
      .description(
        choice === 'approve'
          ? 'Approve a pending tool call by its code, as an admin (the running bot continues the turn)'
          : 'Deny a pending tool call by its code, as an admin (the running bot tells the model and continues)',
      )
      .option('--reason <text>', choice === 'deny' ? 'why (the model is told)' : 'a note for the audit log')
      .option('--json', 'machine-readable output')
      .action(async (code: string, raw: unknown) => {
        const parsed = OptionsSchema.safeParse(raw);
        if (!parsed.success) throw new CliError(`--reason expects 1 to 500 characters`);
        const options = parsed.data;
        const store = await ctx.store();
        const service = new ApprovalService({ store, adapters: new Map(), admins: [], log: silentLogger, resume: async () => {} });
        const result = await service.decideAsOperator(code.trim(), operator(ctx.io.env), choice, options.reason);
        if (!result.ok) throw new CliError(result.message.replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1'), 1);
        const approval = result.approval!;
        if (store.target.provider === 'postgresql') {
          await store.processes.notify(WAKEUP_CHANNEL, JSON.stringify({ kind: 'decided', turnId: approval.turnId }));
        }
        if (options.json)
          return ctx.json({ code: approval.code, status: approval.status, tool: approval.toolName, turnId: approval.turnId });
        ctx.line(
          `${approval.status === 'denied' ? 'Denied' : 'Approved'} ${approval.code} (${approval.toolName}, asked by ${approval.requester.displayName}).`,
        );
        ctx.line('The running bot updates the prompt and continues the turn within seconds (or at its next start).');
      });
  }
}
