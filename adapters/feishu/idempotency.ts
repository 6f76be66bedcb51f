// Feishu's idempotent send: message create and reply take a `uuid` (at most 50 characters), and
// Feishu makes at most one message per uuid within an hour, answering a repeat with that message.
// The uuid is a digest of the core's idempotency key (turn, round, piece), so that the same piece
// sent again by the process continuing a turn after a crash makes no second message.
import { createHash } from 'node:crypto';

export function uuidOf(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 48);
}
