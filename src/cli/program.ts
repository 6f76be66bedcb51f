// The `parley` admin CLI: builds the commander program and runs it with exit codes scripts can trust.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../core/env.ts';
import { ParleyError } from '../core/errors.ts';
import { parleyVersion } from './version.ts';
import { CliContext, CliError, type CliIO, type CliOptions } from './context.ts';

type Register = (program: Command, ctx: CliContext) => void;

// A group of commands is loaded only when the command line starts with one of its names (help and
// unknown words load them all): `parley knowledge search` does not load the MCP client.
const GROUPS: { names: string[]; load: () => Promise<Register> }[] = [
  { names: ['knowledge'], load: async () => (await import('./knowledge.ts')).registerKnowledgeCommands },
  { names: ['db', 'sessions', 'approvals'], load: async () => (await import('./admin.ts')).registerAdminCommands },
  { names: ['mcp'], load: async () => (await import('./mcp.ts')).registerMcpCommands },
  { names: ['status'], load: async () => (await import('./status.ts')).registerStatusCommand },
  { names: ['web'], load: async () => (await import('./web.ts')).registerWebCommands },
  { names: ['usage'], load: async () => (await import('./usage.ts')).registerUsageCommand },
  { names: ['doctor'], load: async () => (await import('./doctor.ts')).registerDoctorCommand },
];

async function buildProgram(ctx: CliContext, argv: string[] = []): Promise<Command> {
  const program = new Command('parley')
    .description('Parley admin CLI: knowledge pages, sessions, approvals, database')
    .version(parleyVersion(), '-V, --version', 'print the version of Parley')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', '\nTo run the bot in this folder (.env, parley.config.ts, data/): parley start')
    .exitOverride()
    .configureOutput({ writeOut: ctx.io.out, writeErr: ctx.io.err });
  const named = GROUPS.filter((group) => group.names.includes(argv[0] ?? ''));
  for (const group of named.length ? named : GROUPS) (await group.load())(program, ctx);
  return program;
}

/** Why an argument is not text, if it is not (a real command line cannot carry these; callers in-process can). */
function notText(arg: string): string | undefined {
  if (arg.includes('\0')) return 'it contains a NUL character';
  if (/\p{Surrogate}/u.test(arg)) return 'it contains an unpaired surrogate';
  return undefined;
}

/** Runs the CLI; resolves with the exit code instead of exiting (so tests can call it). */
export async function runCli(argv: string[], io: CliIO, options: CliOptions = {}): Promise<number> {
  for (const [i, arg] of argv.entries()) {
    const why = notText(arg);
    if (why) {
      io.err(`parley: argument ${i + 1} is not valid text (${why})\n`);
      return 2;
    }
  }
  const ctx = new CliContext(io, options);
  try {
    const program = await buildProgram(ctx, argv);
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version output are successes; usage errors were already printed by commander.
      return error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : 2;
    }
    const message =
      error instanceof CliError || error instanceof ConfigError || error instanceof ParleyError
        ? error.message
        : `unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    io.err(`parley: ${message}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  } finally {
    await ctx.close().catch(() => {});
  }
}
