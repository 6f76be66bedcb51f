// Idle processes issue no periodic queries beyond their heartbeat: two processes on PostgreSQL,
// Telegram in webhook mode, nothing happening; every statement each one sends over 30 s is counted
// (PARLEY_COUNT_SQL=log, dumped on SIGUSR2) and must be a heartbeat's.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { waitFor } from '../helpers/harness.ts';
import { type Cluster, type Member, startCluster } from './cluster.ts';
import { adminUrl } from './pg-database.ts';

const IDLE_MS = 30_000;
// The heartbeat's own statements: its process row (upsert, reaping the silent) and receiver leases.
const HEARTBEAT = /"ParleyProcess"|"ReceiverLease"/;

const dumpSchema = z.object({ total: z.number(), log: z.array(z.string()) });

async function statements(member: Member, file: string): Promise<string[]> {
  rmSync(file, { force: true });
  member.parley.child.kill('SIGUSR2');
  await waitFor(() => existsSync(file), `${member.name}'s statement log`);
  return dumpSchema.parse(JSON.parse(readFileSync(file, 'utf8'))).log;
}

describe.runIf(adminUrl)('idle processes', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster('parley_idle', { PARLEY_COUNT_SQL: 'log' });
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('send nothing but heartbeats over 30 s', { timeout: 90_000 }, async () => {
    const files = ['a', 'b'].map((name) => join(cluster.dir, `${name}.json`));
    const members = [
      await cluster.start('a', { PARLEY_COUNT_SQL_FILE: files[0]! }),
      await cluster.start('b', { PARLEY_COUNT_SQL_FILE: files[1]! }),
    ];
    // Let start-up work (migrations, the first sweep, the knowledge index) finish.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const before = await Promise.all(members.map((member, i) => statements(member, files[i]!)));
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const after = await Promise.all(members.map((member, i) => statements(member, files[i]!)));
    for (const [i, member] of members.entries()) {
      const idle = after[i]!.slice(before[i]!.length);
      const others = idle.filter((sql) => !HEARTBEAT.test(sql));
      process.stdout.write(`${member.name}: ${idle.length} statements in ${IDLE_MS / 1000} s idle, ${others.length} not the heartbeat's\n`);
      expect(others).toEqual([]);
      // The heartbeat does run (2 s interval: about 15 beats of 2 statements).
      expect(idle.length).toBeGreaterThan(0);
    }
  });
});
