// What every `parley` command shares: configuration from the environment (and .env), a store
// opened on first use, output as tables for people or JSON for scripts, and exit codes scripts
// can trust: 0 success, 1 failure, 2 bad input.
import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import { config as loadDotenv } from 'dotenv';
import type TableType from 'cli-table3';
import type { ChannelDoctor } from '../core/doctor.ts';
import { loadConfig, type Config } from '../config/config.ts';
import { plainTable } from './plain-table.ts';
import type { Store } from '../store/store.ts';

export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stdout is a terminal (progress bars, colours). */
  isTTY: boolean;
  /** Whether stdin and stdout both are a terminal (an interactive editor such as vi can run). */
  terminal?: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
  stdin?: NodeJS.ReadableStream;
}

/** What the entry point hands the CLI beyond its input and output. */
export interface CliOptions {
  /**
   * Each channel's checks for `parley doctor`. src/ never imports an adapter: bin/doctor.mjs, which
   * knows both, passes them in (tests pass them directly).
   */
  channelDoctors?: readonly ChannelDoctor[];
}

export class CliContext {
  readonly io: CliIO;
  readonly channelDoctors: readonly ChannelDoctor[];
  #config: Config | undefined;
  #store: Promise<Store> | undefined;

  constructor(io: CliIO, options: CliOptions = {}) {
    this.io = io;
    this.channelDoctors = options.channelDoctors ?? [];
  }

  get config(): Config {
    this.#config ??= loadConfig(this.io.env, this.io.cwd);
    return this.#config;
  }

  /** The store, opened on first use (loading the database client only then). */
  store(): Promise<Store> {
    this.#store ??= import('../store/store.ts').then(({ openStore }) => openStore(this.config.database));
    return this.#store;
  }

  async close(): Promise<void> {
    if (this.#store) await (await this.#store).close();
  }

  json(value: unknown): void {
    this.io.out(`${JSON.stringify(value, null, 2)}\n`);
  }

  table(head: string[], rows: (string | number)[][], empty = 'Nothing to show.'): void {
    if (rows.length === 0) {
      this.io.out(`${empty}\n`);
      return;
    }
    const cells = rows.map((row) => row.map(String));
    // Not for a terminal: drawn here when the cells allow (the same text, without loading cli-table3).
    const plain = this.io.isTTY ? undefined : plainTable(head, cells);
    if (plain !== undefined) {
      this.io.out(`${plain}\n`);
      return;
    }
    // Loaded by the commands that print a table only: start-up time.
    const Table = createRequire(import.meta.url)('cli-table3') as typeof TableType;
    const table = new Table({ head, style: { head: this.io.isTTY ? ['cyan'] : [], border: this.io.isTTY ? ['grey'] : [] } });
    table.push(...cells);
    this.io.out(`${table.toString()}\n`);
  }

  line(text: string): void {
    this.io.out(`${text}\n`);
  }
}

export function defaultIO(): CliIO {
  loadDotenv({ quiet: true });
  // `parley knowledge list | head`: the reader went away; stop quietly like other Unix tools.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    isTTY: Boolean(process.stdout.isTTY),
    // isatty(0), not process.stdin.isTTY: creating process.stdin costs every start (see stdin below).
    terminal: Boolean(process.stdout.isTTY) && isatty(0),
    env: process.env,
    cwd: process.cwd(),
    // Made when a command reads it: creating process.stdin takes a few milliseconds of every start.
    get stdin() {
      return process.stdin;
    },
  };
}

export function shortDate(date: Date | undefined): string {
  return date ? date.toISOString().replace('T', ' ').slice(0, 16) : '';
}

/** Digits only (no "1e3", "0x10", " 5"), and at most 9 of them so the database takes the number as is. */
export function parsePositiveInt(value: string, name: string): number {
  const n = /^\d{1,9}$/.test(value) ? Number(value) : 0;
  if (n <= 0) throw new CliError(`${name} expects a positive whole number up to 999999999 (got "${value}")`);
  return n;
}
