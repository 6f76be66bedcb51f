// The system prompt: a configurable base, who the bot is, the current date and time, the kind of
// chat, then extra context sections (session memory, retrieved knowledge).
import type { ChatType } from '../core/types.ts';

const DEFAULT_BASE_PROMPT = [
  'You are a helpful assistant taking part in a chat.',
  'Answer concisely and in the language the user writes in. Use Markdown sparingly: short paragraphs, lists and code blocks.',
  'Use the available tools when they help; never invent tool results.',
].join('\n');

export interface SystemPromptInput {
  base?: string;
  botName: string;
  now: Date;
  chatType: ChatType;
  channel: string;
  /** Ready-made sections such as <session-context>…</session-context>. */
  sections: string[];
}

export function composeSystemPrompt(input: SystemPromptInput): string {
  const where =
    input.chatType === 'group'
      ? `You are in a group chat on ${input.channel}. Several people may talk; each user message starts with the sender's name in brackets.`
      : `You are in a direct chat on ${input.channel}.`;
  return [
    input.base?.trim() || DEFAULT_BASE_PROMPT,
    `Your name is ${input.botName}.`,
    `Current date and time: ${input.now
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC')}.`,
    where,
    ...input.sections.filter((s) => s.trim().length > 0),
  ].join('\n\n');
}
