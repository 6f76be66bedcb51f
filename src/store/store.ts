// The store: small repository objects over the store's one SQL driver (src/store/sql). Everything
// outside src/store talks to these functions, never to the database. Prisma is the schema and
// migration tool (prisma/), not loaded at run time.
import type { DatabaseTarget } from '../config/config.ts';
import { StoreError } from './errors.ts';
import { migrate, type MigrationReport } from './migrate.ts';
import { approvalsRepo } from './repos/approvals.ts';
import { chatModelsRepo } from './repos/chat-models.ts';
import { auditRepo } from './repos/audit.ts';
import { grantsRepo } from './repos/grants.ts';
import { inboundRepo } from './repos/inbound.ts';
import { knowledgeRepo } from './repos/knowledge.ts';
import { memoryRepo } from './repos/memory.ts';
import { owedAnswersRepo } from './repos/owed-answers.ts';
import { historyCache, messagesRepo } from './repos/messages.ts';
import { processesRepo } from './repos/processes.ts';
import { rateCountsRepo } from './repos/rate-counts.ts';
import { receiversRepo } from './repos/receivers.ts';
import { sessionsRepo } from './repos/sessions.ts';
import { toolStartsRepo } from './repos/tool-starts.ts';
import { turnReadsRepo } from './repos/turn-reads.ts';
import { turnStartRepo } from './repos/turn-start.ts';
import { turnsRepo } from './repos/turns.ts';
import { usageRepo } from './repos/usage.ts';
import type { SqlDriver } from './sql/driver.ts';
import { openSql } from './sql/open.ts';

function repositories(sql: SqlDriver) {
  const histories = historyCache(sql);
  return {
    sessions: sessionsRepo(sql),
    messages: messagesRepo(sql, histories),
    turns: turnsRepo(sql, histories),
    owedAnswers: owedAnswersRepo(sql),
    toolStarts: toolStartsRepo(sql),
    memory: memoryRepo(sql),
    inbound: inboundRepo(sql),
    approvals: approvalsRepo(sql),
    grants: grantsRepo(sql),
    audit: auditRepo(sql),
    knowledge: knowledgeRepo(sql),
    processes: processesRepo(sql),
    receivers: receiversRepo(sql),
    turnReads: turnReadsRepo(sql),
    turnStart: turnStartRepo(sql, histories),
    rateCounts: rateCountsRepo(sql),
    usage: usageRepo(sql),
    chatModels: chatModelsRepo(sql),
  };
}

export type Store = ReturnType<typeof repositories> & {
  readonly target: DatabaseTarget;
  /** The SQL driver the repositories use, for writes that must commit together. */
  readonly sql: SqlDriver;
  /** Migrations applied while opening (empty when the database was up to date). */
  readonly migrations: MigrationReport;
  /** Cheap round trip, for health checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
};

/** Applies pending migrations, then opens the database. */
export async function openStore(target: DatabaseTarget): Promise<Store> {
  const migrations = await migrate(target);
  const sql = await openSql(target);
  let closed = false;
  return {
    ...repositories(sql),
    sql,
    target,
    migrations,
    async ping() {
      try {
        await sql.all('SELECT 1');
      } catch (error) {
        throw StoreError.from(error, target);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await sql.close();
    },
  };
}
