// SessionKey = channel:chatId[:threadId][:userId]. A DM is one session; a group is one shared
// session per thread/topic, or one per member with PARLEY_GROUP_SESSION=per-user.
import type { Inbound } from '../core/types.ts';
import type { SessionSpec } from '../store/types.ts';

export type GroupSessionMode = 'shared' | 'per-user';

export function sessionSpecFor(inbound: Pick<Inbound, 'channel' | 'chatId' | 'chatType' | 'threadId' | 'sender'>, mode: GroupSessionMode): SessionSpec {
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
