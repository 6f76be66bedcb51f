// `parley db migrate`, `parley sessions`, `parley approvals ...`.
import type { Command } from 'commander';
import { migrate } from '../store/migrate.ts';
import { registerDecisionCommands } from './approvals-decide.ts';
import { CliError, parsePositiveInt, shortDate, type CliContext } from './context.ts';

export function registerAdminCommands(program: Command, ctx: CliContext): void {
  const db = program.command('db').description('Database maintenance');
  db.command('migrate')
    .description('Apply pending migrations (npm start does this too)')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      const report = await migrate(ctx.config.database);
      if (options.json) return ctx.json(report);
      ctx.line(
        report.applied.length
          ? `Applied ${report.applied.length} migration(s): ${report.applied.join(', ')}`
          : `Database is up to date (${report.alreadyApplied.length} migration(s) applied before).`,
      );
    });

  program
    .command('sessions')
    .description('List conversations, most recent first')
    .option('--channel <name>', 'only this channel')
    .option('--limit <n>', 'how many', '50')
    .option('--json', 'machine-readable output')
    .action(async (options: { channel?: string; limit: string; json?: boolean }) => {
      const store = await ctx.store();
      const sessions = await store.sessions.list({ limit: parsePositiveInt(options.limit, '--limit'), channel: options.channel });
      const rows = await Promise.all(
        sessions.map(async (s) => ({ ...s, messages: await store.messages.count(s.id), facts: await store.memory.count(s.id) })),
      );
      if (options.json) return ctx.json(rows);
      ctx.table(
        ['key', 'type', 'messages', 'facts', 'conversation', 'updated'],
        rows.map((r) => [r.key, r.chatType, r.messages, r.facts, `#${r.epoch + 1}`, shortDate(r.updatedAt)]),
        'No sessions yet.',
      );
    });

  const approvals = program.command('approvals').description('Tool approvals: requests, decisions, grants');
  registerDecisionCommands(approvals, ctx);
  approvals
    .command('list')
    .description('Approval requests with their outcome, newest first')
    .option('--pending', 'only those still waiting for a decision')
    .option('--limit <n>', 'how many', '50')
    .option('--json', 'machine-readable output')
    .action(async (options: { pending?: boolean; limit: string; json?: boolean }) => {
      const store = await ctx.store();
      const list = await store.approvals.list({
        ...(options.pending ? { status: 'pending' as const } : {}),
        limit: parsePositiveInt(options.limit, '--limit'),
      });
      if (options.json) return ctx.json(list.map(({ token: _token, ...rest }) => rest));
      ctx.table(
        ['code', 'tool', 'status', 'requested by', 'decided by', 'when', 'expires'],
        list.map((a) => [
          a.code,
          a.toolName,
          a.status,
          a.requester.displayName,
          a.decidedBy?.displayName ?? '',
          shortDate(a.decidedAt ?? a.createdAt),
          shortDate(a.expiresAt),
        ]),
        options.pending ? 'No pending approvals.' : 'No approvals yet.',
      );
    });
  approvals
    .command('audit')
    .description('The audit log of decisions and refusals, newest first')
    .option('--limit <n>', 'how many', '100')
    .option('--json', 'machine-readable output')
    .action(async (options: { limit: string; json?: boolean }) => {
      const store = await ctx.store();
      const entries = await store.audit.list({ limit: parsePositiveInt(options.limit, '--limit') });
      if (options.json) return ctx.json(entries);
      ctx.table(
        ['when', 'who', 'action', 'outcome', 'tool', 'args hash', 'detail'],
        entries.map((e) => [
          shortDate(e.at),
          e.actor.displayName,
          e.action,
          e.outcome,
          e.toolName ?? '',
          e.argumentsHash ?? '',
          e.detail ?? '',
        ]),
        'The audit log is empty.',
      );
    });
  approvals
    .command('grants')
    .description('"Always allow here" grants')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      const store = await ctx.store();
      const grants = await store.grants.list();
      const keyed = await Promise.all(
        grants.map(async (g) => ({ ...g, session: (await store.sessions.get(g.sessionId))?.key ?? g.sessionId })),
      );
      if (options.json) return ctx.json(keyed);
      ctx.table(
        ['session', 'tool', 'granted by', 'since'],
        keyed.map((g) => [g.session, g.toolName, g.grantedBy, shortDate(g.createdAt)]),
        'No grants.',
      );
    });
  approvals
    .command('revoke <session-key> [tool]')
    .description("Remove a session's grant for one tool (or all its grants)")
    .action(async (sessionKey: string, tool: string | undefined) => {
      const store = await ctx.store();
      const session = await store.sessions.getByKey(sessionKey);
      if (!session) throw new CliError(`No session with key ${sessionKey} (see: parley sessions)`);
      const removed = await store.grants.revoke(session.id, tool);
      if (removed === 0) throw new CliError(tool ? `${tool} is not granted in ${sessionKey}` : `${sessionKey} has no grants`);
      ctx.line(`Revoked ${removed} grant(s) in ${sessionKey}.`);
    });
}
