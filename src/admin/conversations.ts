// The admin pages' conversations: sessions by channel and chat with their last activity, the
// transcript of the current conversation as the model saw it (tool calls and results included),
// the session's memory facts, and /reset.
import { type AdminActor, type AdminConversations, AdminInputError, type AdminSession } from '../core/admin.ts';
import type { Gateway } from '../gateway/gateway.ts';
import type { Store } from '../store/store.ts';
import type { SessionRecord } from '../store/types.ts';

/** The newest messages shown of a conversation. */
const TRANSCRIPT_MESSAGES = 500;

export function adminConversations({ store, gateway }: { store: Store; gateway: Pick<Gateway, 'stopSession'> }): AdminConversations {
  const view = async (s: SessionRecord): Promise<AdminSession> => ({
    key: s.key,
    channel: s.channel,
    chatId: s.chatId,
    chatType: s.chatType,
    messages: await store.messages.count(s.id),
    facts: await store.memory.count(s.id),
    conversation: s.epoch + 1,
    lastActivity: s.updatedAt,
  });
  return {
    async list({ channel, limit }) {
      return Promise.all((await store.sessions.list({ limit, ...(channel ? { channel } : {}) })).map(view));
    },
    async get(key) {
      const session = await store.sessions.getByKey(key);
      if (!session) return undefined;
      const [messages, facts] = await Promise.all([store.messages.history(session.id, session.epoch), store.memory.list(session.id)]);
      return {
        session: await view(session),
        transcript: messages.slice(-TRANSCRIPT_MESSAGES).map((m) => ({
          role: m.role,
          ...(m.senderName || m.senderId ? { author: m.senderName || m.senderId } : {}),
          text: m.content,
          ...(m.toolCalls?.length ? { toolCalls: m.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })) } : {}),
          ...(m.toolName ? { toolName: m.toolName } : {}),
          ...(m.isError ? { isError: true } : {}),
          at: m.createdAt,
        })),
        facts: facts.map((f) => ({ key: f.key, value: f.value, updatedAt: f.updatedAt })),
      };
    },
    async reset(key, actor: AdminActor) {
      const session = await store.sessions.getByKey(key);
      if (!session) throw new AdminInputError(`no session with key ${key}`, 404);
      await gateway.stopSession(session.id, actor.displayName);
      const epoch = await store.sessions.reset(session.id);
      await store.audit.record({
        actor: { id: `${actor.channel}:${actor.id}`, displayName: actor.displayName },
        action: 'reset',
        outcome: 'done',
        detail: `${key}: conversation #${epoch + 1}`,
      });
    },
  };
}
