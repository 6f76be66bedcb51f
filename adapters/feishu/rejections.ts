// Events Parley cannot read are answered (so Feishu does not push them again) and dropped, with one
// warning naming the offending fields. A delivery pushed again (by event id, or for a message by its
// message id, since Feishu re-pushes under new event ids) is not logged again.
import { createHash } from 'node:crypto';
import type { CoreLogger } from '../../src/core/types.ts';
import { RecentKeys } from './recent-keys.ts';

interface Issues {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}

/** The first few problems of a zod error, each with its field path (`message.chat_id: ...`). */
export function issuesOf(error: Issues): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

function field(data: unknown, key: string): unknown {
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[key] : undefined;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What identifies a delivery across pushes: the message id, the event id, or else the payload itself. */
function deliveryKey(data: unknown): string {
  const id = textOf(field(field(data, 'message'), 'message_id')) ?? textOf(field(data, 'event_id'));
  if (id) return id;
  let json: string;
  try {
    json = JSON.stringify(data) ?? '';
  } catch {
    json = String(data);
  }
  return createHash('sha256').update(json).digest('hex');
}

export class Rejections {
  readonly #log: CoreLogger;
  readonly #seen = new RecentKeys(1_000);

  constructor(log: CoreLogger) {
    this.#log = log;
  }

  /** Logs (once per delivery) that `what` was dropped, and why. */
  report(what: string, data: unknown, reason: string): void {
    if (!this.#seen.add(`${what}\u0000${deliveryKey(data)}`)) return;
    this.#log.warn({ reason }, `dropped a Feishu ${what} Parley cannot read: ${reason}`);
  }
}
