// How an approval request and its outcome look in a chat. Button payloads are short opaque
// tokens naming a database row: `ap:<token>:<a|d|s>`, checked against the channel's payload limit
// (capabilities.maxButtonPayload); a channel whose buttons cannot carry them gets the text form.
// Names, reasons and the description of the call are not the bot's words: they go in as text.
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

function prettyArguments(raw: string): string {
  let text: string;
  try {
    text = JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    text = raw;
  }
  if (text.length > MAX_ARGS_CHARS) text = `${text.slice(0, MAX_ARGS_CHARS)}\n… (${text.length - MAX_ARGS_CHARS} more characters)`;
  return text.replace(/```/g, '`\u200b``');
}

function clock(date: Date): string {
  return `${date.toISOString().slice(11, 16)} UTC`;
}

function minutesUntil(date: Date, now: Date): string {
  const minutes = Math.max(1, Math.round((date.getTime() - now.getTime()) / 60_000));
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

export interface PromptOptions {
  /** Buttons, when the channel has them: the most bytes one button's payload may take. */
  buttons?: { maxPayloadBytes: number };
  now?: Date;
}

/** The prompt's button rows, or undefined when a payload would not fit the channel's limit. */
function approvalButtons(token: string, maxPayloadBytes: number): Button[][] | undefined {
  const row: Button[] = [
    { label: 'Approve', payload: buttonPayload(token, 'approve'), style: 'primary' },
    { label: 'Deny', payload: buttonPayload(token, 'deny'), style: 'danger' },
    { label: 'Always allow here', payload: buttonPayload(token, 'always') },
  ];
  return row.every((button) => Buffer.byteLength(button.payload) <= maxPayloadBytes) ? [row] : undefined;
}

export function approvalPrompt(approval: ApprovalRecord, description: string, options: PromptOptions = {}): OutboundMessage {
  const now = options.now ?? new Date();
  const buttons = options.buttons ? approvalButtons(approval.token, options.buttons.maxPayloadBytes) : undefined;
  const requester = markdownText(approval.requester.displayName);
  const lines = [
    `🔐 **Approval needed**: ${requester} asked me to ${markdownText(description)}.`,
    '',
    `Tool \`${approval.toolName}\` with arguments:`,
    '```json',
    prettyArguments(approval.arguments),
    '```',
    `Expires in ${minutesUntil(approval.expiresAt, now)} (at ${clock(approval.expiresAt)}). Only ${requester} or an admin can decide.`,
  ];
  if (!buttons) lines.push(`Reply /approve ${approval.code} or /deny ${approval.code} [reason].`);
  else lines.push(`Code ${approval.code} (for /approve or /deny).`);
  return { text: lines.join('\n'), ...(buttons ? { buttons } : {}) };
}

/** The prompt after the decision: outcome, who and when; the caller removes the buttons. */
export function outcomeText(approval: ApprovalRecord): string {
  const at = approval.decidedAt ? ` at ${clock(approval.decidedAt)}` : '';
  const by = approval.decidedBy ? markdownText(approval.decidedBy.displayName) : 'someone';
  const head =
    approval.status === 'approved'
      ? approval.alwaysAllow
        ? `✅ Approved by ${by}${at}; \`${approval.toolName}\` is now always allowed in this conversation (/revoke to undo).`
        : `✅ Approved by ${by}${at}.`
      : approval.status === 'expired'
        ? `⌛ Expired${at} without a decision; treated as denied.`
        : `❌ Denied by ${by}${at}${approval.reason ? `: ${markdownText(approval.reason)}` : ''}.`;
  return `${head}\nTool \`${approval.toolName}\` requested by ${markdownText(approval.requester.displayName)}.`;
}
