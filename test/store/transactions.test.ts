// Transactions never interleave: two flows write at once on one store; one rolls back. The other
// flow's writes (in a transaction and outside one) survive, and none of them was undone with it.
import { describe, expect, it } from 'vitest';
import { backends, storeFor } from './backends.ts';

class Abort extends Error {}

const spec = (key: string) => ({ key, channel: 'test', chatId: key, chatType: 'direct' as const });
const yieldFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(backends())('transactions on $name', (backend) => {
  const store = storeFor(backend);

  it("a rolled-back transaction takes none of another flow's writes with it", async () => {
    const session = await store().sessions.ensure(spec('tx:owner'));
    const message = (content: string) => ({ sessionId: session.id, epoch: 0, role: 'user' as const, content });
    let rolledBackStarted = () => {};
    const started = new Promise<void>((resolve) => {
      rolledBackStarted = resolve;
    });

    const rolledBack = store().sql.transaction(async (tx) => {
      await tx.run(`INSERT INTO "MemoryFact" ("sessionId", "key", "value", "updatedAt") VALUES ($1, $2, $3, $4)`, [
        session.id,
        'doomed',
        'x',
        new Date(),
      ]);
      rolledBackStarted();
      // The other flow runs while this transaction is open.
      await yieldFor(50);
      await tx.run(`UPDATE "MemoryFact" SET "value" = $1 WHERE "sessionId" = $2`, ['doomed too', session.id]);
      throw new Abort('roll back');
    });
    await started;
    const other = (async () => {
      const plain = await store().messages.append(message('outside any transaction'));
      const batch = await store().sql.transaction(async (tx) => {
        await tx.run(`INSERT INTO "MemoryFact" ("sessionId", "key", "value", "updatedAt") VALUES ($1, $2, $3, $4)`, [
          session.id,
          'kept',
          'y',
          new Date(),
        ]);
        await yieldFor(10);
        return tx.all(`SELECT "key" FROM "MemoryFact" WHERE "sessionId" = $1 ORDER BY "key"`, [session.id]);
      });
      const fresh = await store().sessions.ensure(spec('tx:other'));
      return { plain, batch, fresh };
    })();

    await expect(rolledBack).rejects.toBeInstanceOf(Abort);
    const { plain, batch, fresh } = await other;
    // Inside its own transaction the other flow never saw the open one's row.
    expect(batch).toEqual([{ key: 'kept' }]);
    expect(await store().memory.list(session.id)).toEqual([expect.objectContaining({ key: 'kept', value: 'y' })]);
    expect(await store().messages.get(plain.id)).toMatchObject({ content: 'outside any transaction' });
    expect(await store().sessions.get(fresh.id)).toMatchObject({ key: 'tx:other' });
  });

  it('a failed statement inside a transaction undoes its earlier statements, and the store goes on', async () => {
    const session = await store().sessions.ensure(spec('tx:failing'));
    const attempt = store().sql.transaction(async (tx) => {
      await tx.run(`UPDATE "Session" SET "epoch" = 7 WHERE "id" = $1`, [session.id]);
      // The same (channel, eventId) twice: a unique violation.
      const insert = `INSERT INTO "InboundEvent" ("channel", "eventId", "status", "receivedAt") VALUES ($1, $2, $3, $4)`;
      await tx.run(insert, ['test', 'tx-dup', 'ignored', new Date()]);
      await tx.run(insert, ['test', 'tx-dup', 'ignored', new Date()]);
    });
    await expect(attempt).rejects.toThrow(/Database error/);
    expect((await store().sessions.get(session.id))?.epoch).toBe(0);
    expect(await store().sql.all(`SELECT "id" FROM "InboundEvent" WHERE "eventId" = $1`, ['tx-dup'])).toEqual([]);
    await store().ping();
  });
});
