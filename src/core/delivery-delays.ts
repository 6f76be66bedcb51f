// A platform client that waits out a refusal by itself (grammY's auto-retry sleeping through a 429's
// retry-after, say) reports each refused attempt here. Nothing listens any more: an answer is
// recorded as owed by the write that finishes its turn (see src/gateway/owed.ts), not when its
// delivery is first refused. Kept until the Telegram adapter drops its calls; then remove this file.

/** An attempt was refused or failed and will be retried (or given up on). */
export function reportDelay(): void {}
