// Errors of MCP connections as they go into the log: type, message, code and stack only. Node's
// spawn errors carry the command's arguments (`spawnargs`), where a server's token often is.
import { errorText } from '../core/errors.ts';

export function loggable(error: unknown): { type: string; message: string; code?: unknown; stack?: string } {
  if (!(error instanceof Error)) return { type: typeof error, message: errorText(error) };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    message: error.message,
    ...(code !== undefined ? { code } : {}),
    ...(error.stack ? { stack: error.stack } : {}),
  };
}
