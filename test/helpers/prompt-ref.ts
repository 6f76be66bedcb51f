// For crash tests: waits until a running Parley (another process) has stored where its pending
// approval prompt is, so `kill -9` lands after that and the restarted process can edit the prompt.
// (A crash between sending the prompt and storing its place is a window of its own.)
import { parseDatabaseUrl } from '../../src/config/config.ts';
import { openStore } from '../../src/store/store.ts';
import { waitFor } from './harness.ts';

export async function promptStored(databaseUrl: string, timeoutMs = 15_000): Promise<void> {
  const store = await openStore(parseDatabaseUrl(databaseUrl));
  try {
    await waitFor(
      async () => (await store.approvals.list({ status: 'pending', limit: 1 }))[0]?.promptRef,
      'the prompt stored with its approval',
      timeoutMs,
    );
  } finally {
    await store.close();
  }
}
