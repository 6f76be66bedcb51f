// The Store as the agent's journal (src/agent/journal.ts). Text the model or a tool produced is
// made storable on the way in (PostgreSQL refuses NUL characters; lone surrogates break the
// drivers), so such output cannot make a write fail again each time the turn is continued.
import type { TurnJournal } from './agent/journal.ts';
import { PersonTextSchema } from './core/types.ts';
import { isDatabaseFailure } from './store/errors.ts';
import type { SessionState } from './store/repos/turn-reads.ts';
import type { Store } from './store/store.ts';
import type { NewMessage } from './store/types.ts';

const storable = (text: string): string => PersonTextSchema.parse(text);

function storableMessage(message: NewMessage): NewMessage {
  return {
    ...message,
    content: storable(message.content),
    ...(message.toolCalls
      ? { toolCalls: message.toolCalls.map((call) => ({ ...call, name: storable(call.name), arguments: storable(call.arguments) })) }
      : {}),
    ...(message.toolName !== undefined ? { toolName: storable(message.toolName) } : {}),
  };
}

/** The lease the turns run under: their end releases it in the same write where that saves a statement, and tells `released`. */
export interface JournalLease {
  owner: string;
  released(sessionId: string, state: SessionState): void;
}

export function storeJournal(store: Store, lease?: JournalLease): TurnJournal {
  return {
    async load(turnId) {
      const turn = await store.turns.get(turnId);
      const session = turn && (await store.sessions.get(turn.sessionId));
      return turn && session ? { turn, session } : undefined;
    },
    history: (sessionId, epoch, fromId, checked) => store.messages.history(sessionId, epoch, fromId, checked),
    turnMessages: (turnId) => store.messages.forTurn(turnId),
    append: (messages, options) => store.messages.appendMany(messages.map(storableMessage), options),
    appendSeeingQueue: (messages, sessionId, options) =>
      store.messages.appendManySeeingQueue(messages.map(storableMessage), sessionId, options),
    async endRound(turnId, usage, assistant, finish) {
      const {
        assistant: record,
        totals,
        released,
      } = await store.turns.endRound({
        turnId,
        usage,
        message: storableMessage(assistant),
        // Otherwise the session's worker releases the lease once the turn's work is over.
        // The answer is owed (recorded in the same write) until this process has delivered it.
        ...(finish
          ? {
              finish,
              ...(lease ? { owedBy: lease.owner } : {}),
              ...(lease && store.turns.releaseRidesOnTurnEnd ? { releaseLeaseOf: lease.owner } : {}),
            }
          : {}),
      });
      if (released) lease?.released(record.sessionId, released);
      return { assistant: record, ended: { usage: totals.usage, rounds: totals.rounds } };
    },
    endToolRound: (turnId, usage, assistant, results) =>
      store.turns.endToolRound({ turnId, usage, message: storableMessage(assistant), results: results.map(storableMessage) }),
    recordToolStarts: (turnId, calls) =>
      store.toolStarts.record(
        turnId,
        calls.map((call) => ({ id: call.id, name: storable(call.name) })),
      ),
    toolStarts: (turnId) => store.toolStarts.started(turnId),
    suspend: (turnId) => store.turns.suspend(turnId, lease?.owner),
    reopen: (turnId) => store.turns.transition(turnId, 'awaiting_approval', 'running'),
    countRecovery: (turnId) => store.turns.countRecovery(turnId),
    async finish(turnId, status, error) {
      const { usage, rounds } = await store.turns.finish(turnId, status, error === undefined ? undefined : storable(error), lease?.owner);
      return { usage, rounds };
    },
    isOutage: isDatabaseFailure,
  };
}
