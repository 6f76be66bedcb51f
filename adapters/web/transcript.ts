// What each web chat has shown: its messages (with their latest text and buttons) and tool
// activity lines, so a reloaded page can show the conversation again. Bounded and kept in this
// process; after a restart a chat is seeded from the conversation the core stored (seed()).
import { randomBytes } from 'node:crypto';
import type { Button } from '../../src/core/types.ts';
import type { AttachmentView } from './uploads.ts';

interface Author {
  id: string;
  name: string;
  isBot: boolean;
}

export interface ReplyPreview {
  id: string;
  author: string;
  snippet: string;
}

export interface MessageEntry {
  kind: 'message';
  id: string;
  /** Creation order within the process. */
  seq: number;
  /** Bumped on every change, so a page can tell a newer version from an older one. */
  rev: number;
  author: Author;
  text: string;
  /** Server-rendered, sanitised HTML of `text` (bot messages only). */
  html?: string;
  buttons: Button[][];
  replyTo?: ReplyPreview;
  /** Files the person dropped or pasted with the message. */
  attachments?: AttachmentView[];
  at: string;
}

export interface ActivityEntry {
  kind: 'activity';
  id: string;
  seq: number;
  rev: number;
  callId: string;
  label: string;
  state: 'running' | 'done' | 'failed';
  at: string;
}

export type TranscriptEntry = MessageEntry | ActivityEntry;

/** An author as one viewer sees it: a name, never an id (ids are server-side only). */
interface AuthorView {
  name: string;
  isBot: boolean;
  /** Written by the viewer's own browser. */
  you: boolean;
}

type MessageView = Omit<MessageEntry, 'author'> & { author: AuthorView };
export type EntryView = MessageView | ActivityEntry;

/** What `viewer` (a browser identity) is shown of an entry. */
export function viewOf(entry: TranscriptEntry, viewer: string): EntryView {
  if (entry.kind !== 'message') return entry;
  const { author, ...rest } = entry;
  return { ...rest, author: { name: author.name, isBot: author.isBot, you: !author.isBot && author.id === viewer } };
}
type NewEntry = Omit<MessageEntry, 'id' | 'seq' | 'rev' | 'at'> | Omit<ActivityEntry, 'id' | 'seq' | 'rev' | 'at'>;

export interface TranscriptLimits {
  entriesPerChat: number;
  chats: number;
}

export class Transcript {
  readonly #limits: TranscriptLimits;
  // A Map keeps insertion order: re-inserting a chat on each touch makes the first one the least recently used.
  readonly #chats = new Map<string, Map<string, TranscriptEntry>>();
  // Ids differ between processes, so a message id stored by an earlier run never names a new message.
  readonly #prefix = randomBytes(4).toString('hex');
  #seq = 0;

  constructor(limits: TranscriptLimits = { entriesPerChat: 500, chats: 1_000 }) {
    this.#limits = limits;
  }

  add(chatId: string, entry: NewEntry): TranscriptEntry {
    const seq = ++this.#seq;
    const full = { ...entry, id: `${this.#prefix}-${seq}`, seq, rev: 1, at: new Date().toISOString() } as TranscriptEntry;
    const chat = this.#touch(chatId);
    chat.set(full.id, full);
    while (chat.size > this.#limits.entriesPerChat) chat.delete(chat.keys().next().value!);
    return full;
  }

  /**
   * Puts stored messages in front of what the chat shows now (a chat first touched after a
   * restart). A message keeps the id it was sent under when known, so a later edit still finds it.
   */
  seed(chatId: string, stored: readonly (Omit<MessageEntry, 'id' | 'seq' | 'rev'> & { id?: string })[]): void {
    const chat = this.#touch(chatId);
    const seeded = new Map<string, TranscriptEntry>();
    for (const entry of stored) {
      const seq = ++this.#seq;
      const id = entry.id && !chat.has(entry.id) ? entry.id : `${this.#prefix}-${seq}`;
      seeded.set(id, { ...entry, id, seq, rev: 1 });
    }
    for (const [id, entry] of chat) seeded.set(id, entry);
    chat.clear();
    const overflow = Math.max(0, seeded.size - this.#limits.entriesPerChat);
    for (const [index, [id, entry]] of [...seeded].entries()) if (index >= overflow) chat.set(id, entry);
  }

  get(chatId: string, id: string): TranscriptEntry | undefined {
    return this.#chats.get(chatId)?.get(id);
  }

  message(chatId: string, id: string): MessageEntry | undefined {
    const entry = this.get(chatId, id);
    return entry?.kind === 'message' ? entry : undefined;
  }

  /** Applies `change` to the entry and bumps its revision; undefined when it is unknown. */
  update<K extends TranscriptEntry['kind']>(
    chatId: string,
    id: string,
    kind: K,
    change: (entry: Extract<TranscriptEntry, { kind: K }>) => void,
  ): Extract<TranscriptEntry, { kind: K }> | undefined {
    const entry = this.get(chatId, id);
    if (!entry || entry.kind !== kind) return undefined;
    const typed = entry as Extract<TranscriptEntry, { kind: K }>;
    change(typed);
    typed.rev++;
    this.#touch(chatId);
    return typed;
  }

  /** The newest activity line of a tool call in the chat. */
  activityOf(chatId: string, callId: string): ActivityEntry | undefined {
    const entries = [...(this.#chats.get(chatId)?.values() ?? [])];
    return entries.reverse().find((e): e is ActivityEntry => e.kind === 'activity' && e.callId === callId);
  }

  list(chatId: string): TranscriptEntry[] {
    return [...(this.#chats.get(chatId)?.values() ?? [])];
  }

  #touch(chatId: string): Map<string, TranscriptEntry> {
    const chat = this.#chats.get(chatId) ?? new Map<string, TranscriptEntry>();
    this.#chats.delete(chatId);
    this.#chats.set(chatId, chat);
    while (this.#chats.size > this.#limits.chats) this.#chats.delete(this.#chats.keys().next().value!);
    return chat;
  }
}
