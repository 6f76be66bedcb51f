// What a chat's stored conversation looks like to a channel that redraws history (the web console
// after a reload or a restart): the user and assistant messages of the session's current epoch,
// and the prompts of approvals still pending, with their buttons, under the message ids they were
// sent as (so the decision's edit still finds them).
import { readableContent } from '../core/attachments.ts';
import { localeOrDefault } from '../core/i18n/index.ts';
import type { ChatRef, ConversationEntry } from '../core/types.ts';
import type { Store } from '../store/store.ts';
import type { ApprovalPromptSink } from './renderer.ts';
import { sessionSpecFor, type GroupSessionMode } from './session-key.ts';

export interface ConversationSource {
  store: Store;
  groupSession: GroupSessionMode;
  botName: string;
  prompts?: ApprovalPromptSink;
}

export async function storedConversation(
  source: ConversationSource,
  chat: ChatRef,
  viewer: { id: string },
  limit: number,
): Promise<ConversationEntry[]> {
  const spec = sessionSpecFor({ ...chat, sender: { id: viewer.id, displayName: '', isBot: false } }, source.groupSession);
  const session = await source.store.sessions.getByKey(spec.key);
  if (!session) return [];
  const entries: ConversationEntry[] = [];
  for (const message of await source.store.messages.history(session.id, session.epoch)) {
    if ((message.role !== 'user' && message.role !== 'assistant') || !message.content.trim()) continue;
    const author =
      message.role === 'user'
        ? { id: message.senderId ?? 'someone', displayName: message.senderName ?? 'someone' }
        : { id: 'bot', displayName: source.botName };
    const text = message.role === 'user' ? readableContent(message.content) : message.content;
    entries.push({ role: message.role, author, text, at: message.createdAt });
  }
  if (source.prompts) {
    const pending = await source.store.approvals.list({ status: 'pending', sessionId: session.id });
    for (const approval of pending.reverse()) {
      // In the language it was first shown in: its turn's.
      const locale = localeOrDefault((await source.store.turns.get(approval.turnId))?.origin.locale);
      const prompt = source.prompts.render(approval, undefined, chat, locale);
      entries.push({
        role: 'assistant',
        author: { id: 'bot', displayName: source.botName },
        text: prompt.text,
        ...(prompt.buttons ? { buttons: prompt.buttons } : {}),
        ...(approval.promptRef?.chatId === chat.chatId ? { messageId: approval.promptRef.messageId } : {}),
        at: approval.createdAt,
      });
    }
  }
  entries.sort((a, b) => a.at.getTime() - b.at.getTime());
  return entries.slice(-limit);
}
