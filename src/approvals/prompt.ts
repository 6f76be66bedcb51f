// How an approval request and its outcome look in a chat. Button payloads are short opaque
// tokens naming a database row: `ap:<token>:<a|d|s>`, checked against the channel's payload limit
// (capabilities.maxButtonPayload); a channel whose buttons cannot carry them gets the text form.
// Names, reasons and the description of the call are not the bot's words: they go in as text.
import { type Locale, t, type Wording, wordingText } from '../core/i18n/index.ts';
import { markdownText } from '../core/markdown-text.ts';
import type { Button, OutboundMessage } from '../core/types.ts';
import type { ApprovalRecord } from '../store/types.ts';

export type ApprovalChoice = 'approve' | 'deny' | 'always';

const CHOICE_CODES: Record<ApprovalChoice, string> = { approve: 'a', deny: 'd', always: 's' };
const CODE_CHOICES: Record<string, ApprovalChoice> = { a: 'approve', d: 'deny', s: 'always' };

function buttonPayload(token: string, choice: ApprovalChoice): string {
  return `ap:${token}:${CHOICE_CODES[choice]}`;
}

/** Undefined when the payload is not an approval button (other features may own it). */
export function parseButtonPayload(payload: string): { token: string; choice: ApprovalChoice } | undefined {
  const match = /^ap:([A-Za-z0-9_-]{1,48}):([ads])$/.exec(payload);
  if (!match) return undefined;
  return { token: match[1]!, choice: CODE_CHOICES[match[2]!]! };
}

const MAX_ARGS_CHARS = 1_200;

function prettyArguments(raw: string, locale: Locale): string {
  let text: string;
  try {
    text = JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    text = raw;
  }
  if (text.length > MAX_ARGS_CHARS)
    text = `${text.slice(0, MAX_ARGS_CHARS)}\n${t(locale, 'approval.moreCharacters', { count: text.length - MAX_ARGS_CHARS })}`;
  return text.replace(/```/g, '`\u200b``');
}

function clock(date: Date): string {
  return `${date.toISOString().slice(11, 16)} UTC`;
}

function minutesUntil(date: Date, now: Date): number {
  return Math.max(1, Math.round((date.getTime() - now.getTime()) / 60_000));
}

export interface PromptOptions {
  /** Buttons, when the channel has them: the most bytes one button's payload may take. */
  buttons?: { maxPayloadBytes: number };
  now?: Date;
  /** The language of the prompt's words and buttons (English by default). */
  locale?: Locale;
}

/** The prompt's button rows, or undefined when a payload would not fit the channel's limit. */
function approvalButtons(token: string, maxPayloadBytes: number, locale: Locale): Button[][] | undefined {
  const row: Button[] = [
    { label: t(locale, 'approval.approve'), payload: buttonPayload(token, 'approve'), style: 'primary' },
    { label: t(locale, 'approval.deny'), payload: buttonPayload(token, 'deny'), style: 'danger' },
    { label: t(locale, 'approval.always'), payload: buttonPayload(token, 'always') },
  ];
  return row.every((button) => Buffer.byteLength(button.payload) <= maxPayloadBytes) ? [row] : undefined;
}

/** `description`: the tool's words for the call (absent: the prompt names the tool). */
export function approvalPrompt(approval: ApprovalRecord, description: Wording | undefined, options: PromptOptions = {}): OutboundMessage {
  const now = options.now ?? new Date();
  const locale = options.locale ?? 'en';
  const buttons = options.buttons ? approvalButtons(approval.token, options.buttons.maxPayloadBytes, locale) : undefined;
  const requester = markdownText(approval.requester.displayName);
  const action = description ? wordingText(locale, description) : t(locale, 'approval.runTool', { tool: approval.toolName });
  const lines = [
    t(locale, 'approval.needed', { requester, action: markdownText(action) }),
    '',
    t(locale, 'approval.arguments', { tool: approval.toolName }),
    '```json',
    prettyArguments(approval.arguments, locale),
    '```',
    t(locale, 'approval.expires', { count: minutesUntil(approval.expiresAt, now), time: clock(approval.expiresAt), requester }),
  ];
  if (!buttons) lines.push(t(locale, 'approval.replyWithCode', { code: approval.code }));
  else lines.push(t(locale, 'approval.code', { code: approval.code }));
  return { text: lines.join('\n'), ...(buttons ? { buttons } : {}) };
}

/** The prompt after the decision: outcome, who and when; the caller removes the buttons. */
export function outcomeText(approval: ApprovalRecord, locale: Locale = 'en'): string {
  const at = approval.decidedAt ? t(locale, 'approval.at', { time: clock(approval.decidedAt) }) : '';
  const name = approval.decidedBy ? markdownText(approval.decidedBy.displayName) : t(locale, 'general.someone');
  const tool = approval.toolName;
  const head =
    approval.status === 'approved'
      ? approval.alwaysAllow
        ? t(locale, 'approval.approvedAlways', { name, at, tool })
        : t(locale, 'approval.approvedBy', { name, at })
      : approval.status === 'expired'
        ? t(locale, 'approval.expired', { at })
        : approval.reason
          ? t(locale, 'approval.deniedWithReason', { name, at, reason: markdownText(approval.reason) })
          : t(locale, 'approval.deniedBy', { name, at });
  return `${head}\n${t(locale, 'approval.requestedBy', { tool, requester: markdownText(approval.requester.displayName) })}`;
}
