// For tests of whole processes: with PARLEY_COUNT_SQL=log and PARLEY_COUNT_SQL_FILE set, SIGUSR2
// writes the statements counted so far to that file (JSON), so a test can tell what an idle
// process sends. Does nothing unless both are set.
import { renameSync, writeFileSync } from 'node:fs';
import { statementCounter } from './statement-count.ts';

export function dumpStatementsOnSignal(env: NodeJS.ProcessEnv = process.env): void {
  const file = env.PARLEY_COUNT_SQL_FILE;
  const counter = statementCounter();
  if (!file || !counter?.log) return;
  process.on('SIGUSR2', () => {
    // Written aside, then renamed: the reader never sees half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify({ total: counter.total, log: counter.log }));
    renameSync(`${file}.tmp`, file);
  });
}
