// The `parley` admin CLI: builds the commander program and runs it with exit codes scripts can trust.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../core/env.ts';
import { ParleyError } from '../core/errors.ts';
import { registerAdminCommands } from './admin.ts';
import { registerKnowledgeCommands } from './knowledge.ts';
import { registerMcpCommands } from './mcp.ts';
import { CliContext, CliError, type CliIO } from './context.ts';

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('parley')
    .description('Parley admin CLI: knowledge pages, sessions, approvals, database')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: ctx.io.out, writeErr: ctx.io.err });
  registerKnowledgeCommands(program, ctx);
  registerAdminCommands(program, ctx);
  registerMcpCommands(program, ctx);
  return program;
}

/** Why an argument is not text, if it is not (a real command line cannot carry these; callers in-process can). */
function notText(arg: string): string | undefined {
  if (arg.includes('\0')) return 'it contains a NUL character';
  if (/\p{Surrogate}/u.test(arg)) return 'it contains an unpaired surrogate';
  return undefined;
}

/** Runs the CLI; resolves with the exit code instead of exiting (so tests can call it). */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  for (const [i, arg] of argv.entries()) {
    const why = notText(arg);
    if (why) {
      io.err(`parley: argument ${i + 1} is not valid text (${why})\n`);
      return 2;
    }
  }
  const ctx = new CliContext(io);
  const program = buildProgram(ctx);
  try {
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
