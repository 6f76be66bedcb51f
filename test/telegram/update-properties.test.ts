// Property tests of the Telegram normalisation path (the adapter's update router: grammY filter
// queries, payload checks, classification) over thousands of real and mutated updates: it never
// throws, and whatever it hands the core satisfies the neutral contract.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccessPolicy } from '../../adapters/telegram/inbound.ts';
import { InboundSchema } from '../../src/core/types.ts';
import { classifyUpdate } from './classify.ts';
import { anyUpdate, BOT_ID, BOT_USERNAME } from './update-arbitraries.ts';

const BOT = { id: BOT_ID, username: BOT_USERNAME };
const OPEN: AccessPolicy = { allowedChats: new Set(), allowedUsers: new Set() };
const updateId = fc.oneof(fc.nat({ max: 2 ** 31 }), fc.constantFrom(-1, 1.5, 2 ** 53 + 2, '7', null));

function classify(update: Record<string, unknown>, id: unknown) {
  // The adapter gets what JSON.parse made of the HTTP body.
  const raw: unknown = JSON.parse(JSON.stringify({ ...update, update_id: id }));
  return classifyUpdate(raw, BOT, OPEN, 'telegram');
}

describe('telegram normalisation: properties', () => {
  it('never throws, and every message or button press it reports is well-formed', async () => {
    const kinds = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(anyUpdate, updateId, async (update, id) => {
        const result = await classify(update, id);
        kinds.set(result.kind, (kinds.get(result.kind) ?? 0) + 1);
        switch (result.kind) {
          case 'message': {
            const checked = InboundSchema.safeParse(result.inbound);
            expect(checked.error?.issues ?? [], JSON.stringify(result.inbound).slice(0, 300)).toEqual([]);
            expect(Number.isNaN(result.inbound.receivedAt.getTime())).toBe(false);
            break;
          }
          case 'button':
            expect(result.press.callbackQueryId).not.toBe('');
            expect(typeof result.press.payload).toBe('string');
            break;
          default:
            expect(result.reason.length).toBeGreaterThan(0);
            expect(result.reason.length).toBeLessThan(2_000);
            if (result.callbackQueryId !== undefined) expect(result.callbackQueryId).not.toBe('');
        }
      }),
      { seed: 42, numRuns: 5_000 },
    );
    // The generator reaches every outcome, so the checks above are exercised.
    expect([...kinds.keys()].sort()).toEqual(['button', 'ignored', 'malformed', 'message']);
  });

  it('never throws on values JSON cannot carry', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.anything({
          withBigInt: true,
          withMap: true,
          withSet: true,
          withTypedArray: true,
          withSparseArray: true,
          withNullPrototype: true,
        }),
        async (value) => {
          const wrapped = [value, { update_id: 1, message: value }, { update_id: 1, callback_query: value }];
          for (const raw of wrapped)
            expect(['malformed', 'ignored', 'message', 'button']).toContain((await classifyUpdate(raw, BOT, OPEN, 'telegram')).kind);
        },
      ),
      { seed: 42, numRuns: 1_000 },
    );
  });
});
