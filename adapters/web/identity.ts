// Where people talk: without a room a browser has a direct chat with the bot, `?room=<name>`
// puts everyone who names it in one group chat. Who they are is identities.ts's job.
import { z } from 'zod';
import type { ChatType } from '../../src/core/types.ts';

export const RoomSchema = z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, { error: 'expects 1-40 letters, digits, _ or -' });
export const DisplayNameSchema = z.string().trim().min(1, { error: 'expects a name' }).max(40, { error: 'expects at most 40 characters' });

export interface WebPerson {
  /** The browser's server-minted identity. */
  id: string;
  /** Cosmetic: what this tab calls itself. */
  name: string;
  /** The browser's languages (its Accept-Language header), when it sent them. */
  locale?: string;
}

export interface WebChat {
  chatId: string;
  chatType: ChatType;
}

export function chatFor(userId: string, room: string | undefined): WebChat {
  return room ? { chatId: `room-${room}`, chatType: 'group' } : { chatId: `dm-${userId}`, chatType: 'direct' };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `@BotName` anywhere in the text, as a whole word, any case. */
export function mentionsBot(text: string, botName: string): boolean {
  return new RegExp(`(^|[^\\w@])@${escapeRegExp(botName)}(?![\\w-])`, 'iu').test(text);
}

/**
 * Commands as every adapter reports them: `/cmd@BotName args` becomes `/cmd args`; a command
 * addressed to another bot is not for us (undefined).
 */
export function normaliseCommand(text: string, botName: string): string | undefined {
  const match = /^\/([a-zA-Z0-9_]{1,32})@([\w-]+)([\s\S]*)$/u.exec(text.trim());
  if (!match) return text;
  if (match[2]!.toLowerCase() !== botName.toLowerCase()) return undefined;
  return `/${match[1]}${match[3]}`;
}
