// One pino logger for the process: JSON lines, or pretty output when stderr is a terminal.
// Secrets are redacted by key name wherever they appear in logged objects.
import { pino, type Logger } from 'pino';

export type { Logger };

const REDACT = [
  'apiKey',
  'token',
  'botToken',
  'secret',
  'password',
  'authorization',
  '*.apiKey',
  '*.token',
  '*.botToken',
  '*.secret',
  '*.password',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
];

export function createLogger(level: string, options: { pretty?: boolean } = {}): Logger {
  const pretty = options.pretty ?? Boolean(process.stderr.isTTY);
  return pino(
    {
      level,
      redact: { paths: REDACT, censor: '[redacted]' },
      ...(pretty ? { transport: { target: 'pino-pretty', options: { destination: 2, colorize: true, ignore: 'pid,hostname' } } } : {}),
    },
    pretty ? undefined : pino.destination(2),
  );
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = pino({ level: 'silent' });
