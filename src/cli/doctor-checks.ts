// `parley doctor`'s checks of what src/ itself knows: the database, the HTTP listener and public
// URL, and the MCP servers (connected as `parley mcp list` does). The model's are in
// doctor-model.ts; each channel's come from its adapter (CliContext.channelDoctors).
import { errorText } from '../core/errors.ts';
import { type DoctorCheck, failureReason } from '../core/doctor.ts';
import { hostUrl, httpConfigFromEnv, onlyThisMachine } from '../http/config.ts';
import { redactUrl } from '../store/errors.ts';
import { migrationStatus } from '../store/migration-status.ts';
import type { CliContext } from './context.ts';

export async function databaseChecks(ctx: CliContext): Promise<DoctorCheck[]> {
  const target = ctx.config.database;
  const where = target.provider === 'sqlite' ? `SQLite ${target.file}` : `PostgreSQL ${redactUrl(target.url)}`;
  try {
    const status = await migrationStatus(target);
    if (status.kind === 'missing') {
      return [
        {
          area: 'database',
          check: where,
          status: 'warning',
          detail: 'the file does not exist yet',
          fix: '`npm start` (or `parley db migrate`) creates it.',
        },
      ];
    }
    if (status.pending.length > 0) {
      return [
        {
          area: 'database',
          check: where,
          status: 'problem',
          detail: `reachable; ${status.pending.length} migration(s) not applied: ${status.pending.join(', ')}`,
          fix: 'Run `parley db migrate` (npm start applies them too).',
        },
      ];
    }
    return [{ area: 'database', check: where, status: 'ok', detail: `reachable; all ${status.applied} migrations applied` }];
  } catch (error) {
    return [
      {
        area: 'database',
        check: where,
        status: 'problem',
        detail: errorText(error),
        fix: 'Check DATABASE_URL, and that the database server runs (PostgreSQL) or the folder is writable (SQLite).',
      },
    ];
  }
}

async function answersHealthz(publicUrl: string, timeoutMs: number): Promise<string | undefined> {
  try {
    const response = await fetch(new URL('/healthz', publicUrl), { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await response.arrayBuffer();
    return response.ok ? undefined : `/healthz answered ${response.status}`;
  } catch (error) {
    return `no answer at /healthz (${failureReason(error)})`;
  }
}

export async function httpChecks(ctx: CliContext, timeoutMs: number): Promise<DoctorCheck[]> {
  let http: ReturnType<typeof httpConfigFromEnv>;
  try {
    http = httpConfigFromEnv(ctx.io.env);
  } catch (error) {
    return [{ area: 'http', check: 'listener', status: 'problem', detail: errorText(error) }];
  }
  const local = onlyThisMachine(http);
  const checks: DoctorCheck[] = [
    {
      area: 'http',
      check: 'listener',
      status: 'ok',
      detail: `${hostUrl(http.host, http.port)} (${local ? 'only this machine reaches it' : 'other machines reach it'})`,
    },
  ];
  if (!http.publicUrl) {
    checks.push({
      area: 'http',
      check: 'public URL',
      status: local ? 'ok' : 'warning',
      detail: 'PARLEY_WEB_PUBLIC_URL not set',
      ...(local ? {} : { fix: 'Behind a proxy, set PARLEY_WEB_PUBLIC_URL to the https:// address people use (links and Secure cookies).' }),
    });
    return checks;
  }
  const url = new URL(http.publicUrl);
  const insecure = url.protocol === 'http:' && !onlyThisMachine({ host: url.hostname });
  const unanswered = await answersHealthz(http.publicUrl, timeoutMs);
  checks.push({
    area: 'http',
    check: 'public URL',
    status: insecure || unanswered ? 'warning' : 'ok',
    detail: `${url.origin}${insecure ? ': plain http to another machine (cookies are not Secure)' : ''}${unanswered ? `: ${unanswered}` : ': a running Parley answers there'}`,
    ...(insecure
      ? { fix: 'Serve it over https (a reverse proxy) and set PARLEY_WEB_PUBLIC_URL=https://...' }
      : unanswered
        ? { fix: 'Fine while Parley is not running; otherwise check the proxy in front of PARLEY_HTTP_HOST/PORT.' }
        : {}),
  });
  return checks;
}

export async function mcpChecks(ctx: CliContext, timeoutMs: number): Promise<DoctorCheck[]> {
  const { loadFileConfig } = await import('../config-file/load.ts');
  let file: ReturnType<typeof loadFileConfig>;
  try {
    file = loadFileConfig(ctx.io.env, ctx.io.cwd);
  } catch (error) {
    return [{ area: 'mcp', check: 'configuration file', status: 'problem', detail: errorText(error) }];
  }
  if (file.mcpServers.length === 0) return [];
  // Loaded only with servers to check (the MCP SDK is large).
  const { connectMcpServers, stateText } = await import('./mcp.ts');
  const servers = await connectMcpServers(ctx, file.mcpServers, timeoutMs);
  return servers.map((server) => {
    const tools = server.tools.filter((tool) => !tool.hidden).length;
    const down = server.state !== 'connected' && server.state !== 'disabled';
    return {
      area: 'mcp',
      check: server.name,
      status: down ? 'problem' : server.state === 'disabled' ? 'skipped' : 'ok',
      detail: `${stateText(server)}${server.state === 'connected' ? `, ${tools} tool(s)` : ''}`,
      ...(down ? { fix: `Check the entry ${server.name} in ${file.path ?? 'parley.config.yaml'}; \`parley mcp list\` shows more.` } : {}),
    };
  });
}
