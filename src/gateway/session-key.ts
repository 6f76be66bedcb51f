// SessionKey = channel:chatId[:threadId][:userId]. A DM is one session; a group is one shared
// session per thread/topic, or one per member with PARLEY_GROUP_SESSION=per-user. Also where a
// message's answer goes (chat and origin).
import { localeOf } from '../core/i18n/index.ts';
import type { ChatRef, Inbound } from '../core/types.ts';
import type { SessionSpec, TurnOrigin } from '../store/types.ts';

export type GroupSessionMode = 'shared' | 'per-user';

export function sessionSpecFor(
  inbound: Pick<Inbound, 'channel' | 'chatId' | 'chatType' | 'threadId' | 'sender'>,
  mode: GroupSessionMode,
): SessionSpec {
  const perUser = inbound.chatType === 'group' && mode === 'per-user';
  const parts = [inbound.channel, inbound.chatId];
  if (inbound.threadId) parts.push(inbound.threadId);
  if (perUser) parts.push(inbound.sender.id);
  return {
    key: parts.map((p) => p.replace(/:/g, '%3A')).join(':'),
    channel: inbound.channel,
    chatId: inbound.chatId,
    chatType: inbound.chatType,
    ...(inbound.threadId ? { threadId: inbound.threadId } : {}),
    ...(perUser ? { userId: inbound.sender.id } : {}),
  };
}

export function chatOf(inbound: Pick<Inbound, 'channel' | 'chatId' | 'chatType' | 'threadId'>): ChatRef {
  return {
    channel: inbound.channel,
    chatId: inbound.chatId,
    chatType: inbound.chatType,
    ...(inbound.threadId ? { threadId: inbound.threadId } : {}),
  };
}

/** Where a turn started by this message replies, and who asked. */
export function originOf(inbound: Inbound): TurnOrigin {
  return {
    chat: chatOf(inbound),
    requester: { id: inbound.sender.id, displayName: inbound.sender.displayName || inbound.sender.id },
    replyToMessageId: inbound.messageId,
    // The router stores the locale it resolved for the message in `inbound.locale`.
    ...(localeOf(inbound.locale) ? { locale: localeOf(inbound.locale)! } : {}),
    ...(titleOf(inbound.chatTitle) ? { chatTitle: titleOf(inbound.chatTitle) } : {}),
  };
}

/** A chat's name on one line, at most 100 characters (it may go into the system prompt). */
function titleOf(raw: string | undefined): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
  const line = raw?.replace(/[\u0000-\u001f\u007f\u2028\u2029\s]+/g, ' ').trim();
  return line ? [...line].slice(0, 100).join('') : undefined;
}
