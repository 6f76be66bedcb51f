// The system prompt: a configurable base (a template, rendered with the chat's variables: see
// src/config/prompt-template.ts), who the bot is, the kind of chat, extra context sections
// (session memory), then today's date (unless the template places it). It changes only when one of those does: a provider caches
// the beginning of a request only while it stays byte for byte the same, so nothing here changes
// every round (no clock); a turn's own material (retrieved knowledge) goes with its user message.
import type { PromptTemplate } from '../config/prompt-template.ts';
import type { ChatType } from '../core/types.ts';

const DEFAULT_BASE_PROMPT = [
  'You are a helpful assistant taking part in a chat.',
  'Answer concisely and in the language the user writes in. Use Markdown sparingly: short paragraphs, lists and code blocks.',
  'Use the available tools when they help; never invent tool results.',
].join('\n');

export interface SystemPromptInput {
  base?: PromptTemplate;
  botName: string;
  now: Date;
  chatType: ChatType;
  channel: string;
  /** The chat's name, where the platform sends it ('' otherwise). */
  chatTitle: string;
  locale: string;
  /** Ready-made sections such as <session-context>…</session-context>, the same from round to round until what they show changes. */
  sections: string[];
}

export function composeSystemPrompt(input: SystemPromptInput): string {
  const where =
    input.chatType === 'group'
      ? `You are in a group chat on ${input.channel}. Several people may talk; each user message starts with the sender's name in brackets.`
      : `You are in a direct chat on ${input.channel}.`;
  const date = input.now.toISOString().slice(0, 10);
  const base = input.base?.render({
    botName: input.botName,
    channel: input.channel,
    chatType: input.chatType,
    chatTitle: input.chatTitle,
    locale: input.locale,
    date,
  });
  return [
    base?.trim() || DEFAULT_BASE_PROMPT,
    `Your name is ${input.botName}.`,
    where,
    ...input.sections.filter((s) => s.trim().length > 0),
    ...(input.base?.usesDate ? [] : [`Today's date: ${date} (UTC).`]),
  ].join('\n\n');
}
