import type { DatabaseTarget } from '../config/config.ts';
import { ParleyError } from '../core/errors.ts';

/** A storage failure. `message` is one line an operator can act on (no secrets). */
export class StoreError extends ParleyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(
      message,
      { key: 'general.database' },
      {
        ...options,
        retryable: true,
      },
    );
  }

  static from(error: unknown, target: DatabaseTarget): StoreError {
    if (error instanceof StoreError) return error;
    const code = (error as { code?: string } | undefined)?.code;
    const where = target.provider === 'sqlite' ? `SQLite file ${target.file}` : `PostgreSQL at ${redactUrl(target.url)}`;
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    const reason =
      code === 'ECONNREFUSED'
        ? 'connection refused (is the server running?)'
        : code === 'ENOTFOUND'
          ? 'host not found'
          : code === 'SQLITE_CANTOPEN'
            ? 'cannot open the file (does the folder exist and is it writable?)'
            : code === '3D000'
              ? 'the database does not exist'
              : detail;
    return new StoreError(`Database error (${where}): ${reason}`, { cause: error });
  }
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** True for failures raised by the database layer (as opposed to bugs or bad input elsewhere). */
export function isDatabaseFailure(error: unknown): boolean {
  // The SQL driver and the migrator report every database failure as a StoreError.
  return error instanceof StoreError;
}
