// `parley doctor [--json]`: checks the database, the model, each configured channel, the MCP
// servers and the HTTP listener, one line each with OK / problem and how to fix it. Exit code 1
// when any check found a problem (warnings do not count), so scripts and CI can trust it.
import type { Command } from 'commander';
import { z } from 'zod';
import { type CheckStatus, type DoctorCheck, failureReason } from '../core/doctor.ts';
import type { ModelsSetup } from '../config/models.ts';
import { duration } from '../core/env.ts';
import { CliError, type CliContext } from './context.ts';
import { databaseChecks, httpChecks, mcpChecks } from './doctor-checks.ts';
import { namedModelChecks } from './doctor-model.ts';

const LABEL: Record<CheckStatus, string> = { ok: 'OK', warning: 'warning', problem: 'PROBLEM', skipped: 'skipped' };

const OptionsSchema = z.object({
  json: z.boolean().optional(),
  timeout: duration(10_000).refine((ms) => ms >= 100 && ms <= 120_000, { error: 'expects a duration from 100ms to 2m, such as 10s' }),
});

async function channelChecks(ctx: CliContext, timeoutMs: number): Promise<DoctorCheck[]> {
  const all = await Promise.all(
    ctx.channelDoctors.map((doctor) =>
      doctor
        .check({ env: ctx.io.env, timeoutMs })
        .catch((error: unknown): DoctorCheck[] => [
          { area: doctor.kind, check: 'checks', status: 'problem', detail: `could not run: ${failureReason(error)}` },
        ]),
    ),
  );
  return all.flat();
}

/** A configuration error of several lines, on one. */
const errorLines = (error: unknown) => (error instanceof Error ? error.message : String(error)).replace(/\n\s*/g, ' ');

/** Every configured model: the OPENAI_* one and those of parley.config.yaml or parley.config.ts, as `parley start` reads them. */
async function allModelChecks(ctx: CliContext, timeoutMs: number): Promise<DoctorCheck[]> {
  let models: ModelsSetup;
  try {
    const { loadFileConfig } = await import('../config-file/load.ts');
    const { loadProjectConfig } = await import('../framework/load.ts');
    const { withProjectModelsAndPrompt } = await import('../framework/models-and-prompt.ts');
    const file = loadFileConfig(ctx.io.env, ctx.io.cwd);
    const project = await loadProjectConfig(ctx.io.cwd);
    models = withProjectModelsAndPrompt(ctx.config, file, project, ctx.io.env).models;
  } catch (error) {
    return [{ area: 'model', check: 'configuration', status: 'problem', detail: errorLines(error) }];
  }
  return namedModelChecks(models, timeoutMs);
}

export async function runDoctor(ctx: CliContext, timeoutMs: number): Promise<DoctorCheck[]> {
  const groups = await Promise.all([
    databaseChecks(ctx),
    allModelChecks(ctx, timeoutMs),
    channelChecks(ctx, timeoutMs),
    mcpChecks(ctx, timeoutMs),
    httpChecks(ctx, timeoutMs),
  ]);
  return groups.flat();
}

export function registerDoctorCommand(program: Command, ctx: CliContext): void {
  program
    .command('doctor')
    .description('Check the database, the model, each configured platform, MCP servers and the HTTP listener; exit code 1 on a problem')
    .option('--timeout <duration>', 'how long each request may take', '10s')
    .option('--json', 'machine-readable output')
    .action(async (raw: { timeout: string; json?: boolean }) => {
      const parsed = OptionsSchema.safeParse(raw);
      if (!parsed.success) throw new CliError(`--timeout ${parsed.error.issues[0]?.message ?? 'is invalid'} (got "${raw.timeout}")`);
      const checks = await runDoctor(ctx, parsed.data.timeout);
      const problems = checks.filter((check) => check.status === 'problem').length;
      if (parsed.data.json) {
        ctx.json({ ok: problems === 0, problems, checks });
      } else {
        ctx.table(
          ['area', 'check', 'result', 'details', 'how to fix'],
          checks.map((c) => [c.area, c.check, LABEL[c.status], c.detail, c.fix ?? '']),
        );
        if (ctx.channelDoctors.length > 0 && !checks.some((c) => ctx.channelDoctors.some((d) => d.kind === c.area))) {
          ctx.line('No platform configured (TELEGRAM_BOT_TOKEN, DISCORD_BOT_TOKEN, FEISHU_APP_ID): only the web console would run.');
        }
      }
      if (problems > 0) throw new CliError(`${problems} problem(s) found`, 1);
    });
}
