// Errors of MCP connections as they go into the log: type, message, code and stack only. Node's
// spawn errors carry the command's arguments (`spawnargs`), where a server's token often is; the
// message and stack may quote the server (an HTTP error body), so they pass through its redactor.
import { errorText } from '../core/errors.ts';
import type { Redact } from './redact.ts';

export function loggable(error: unknown, redact: Redact): { type: string; message: string; code?: unknown; stack?: string } {
  if (!(error instanceof Error)) return { type: typeof error, message: redact(errorText(error)) };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    message: redact(error.message),
    ...(code !== undefined ? { code } : {}),
    ...(error.stack ? { stack: redact(error.stack) } : {}),
  };
}
