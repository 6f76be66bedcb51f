// `parley doctor`'s Feishu / Lark checks, through the SDK's Client against the configured domain:
// the app credentials (a tenant access token), the bot (GET /open-apis/bot/v3/info: is the Bot
// capability on?), the scopes the tenant granted, where the API tells (application.v6.scope.list;
// an app without the right to read them gets "not told", not a problem), and the event and callback
// subscriptions (doctor-subscriptions.ts). Nothing secret is reported.
import { Client, LoggerLevel } from '@larksuiteoapi/node-sdk';
import { z } from 'zod';
import { type ChannelDoctor, channelConfig, type DoctorCheck, failureReason, withoutSecrets } from '../../src/core/doctor.ts';
import { type FeishuConfig, loadFeishuConfig } from './config.ts';
import { subscriptionChecks } from './doctor-subscriptions.ts';
import { memoryCache } from './sdk-support.ts';

const AREA = 'feishu';
/** What Parley needs (README: Feishu / Lark, step 2). */
const NEEDED_SCOPES = ['im:message', 'im:message.p2p_msg:readonly', 'im:message.group_at_msg:readonly', 'im:message:readonly'];
/** Feishu's grant_status for a scope the tenant granted. */
const GRANTED = 1;

const TokenAnswerSchema = z.looseObject({ code: z.number().optional(), msg: z.string().optional() });
const BotInfoSchema = z.looseObject({
  code: z.number().optional(),
  msg: z.string().optional(),
  bot: z.looseObject({ open_id: z.string().nullish(), app_name: z.string().nullish(), activate_status: z.number().nullish() }).nullish(),
});

function silentLogger() {
  const nothing = () => {};
  return { error: nothing, warn: nothing, info: nothing, debug: nothing, trace: nothing };
}

/** The platform's `{code, msg}` from an answer or from the SDK's (axios) error. */
function platformAnswer(error: unknown): { code?: number; msg?: string; status?: number } | undefined {
  const response = (error as { response?: { status?: number; data?: unknown } } | undefined)?.response;
  if (!response) return undefined;
  const data = TokenAnswerSchema.safeParse(response.data);
  return { ...(data.success ? data.data : {}), ...(response.status ? { status: response.status } : {}) };
}

function failed(check: string, error: unknown, config: FeishuConfig, fix?: string): DoctorCheck {
  const answer = platformAnswer(error);
  const detail = answer
    ? `answered ${answer.status ?? ''} code ${answer.code ?? '?'}: ${answer.msg ?? ''}`.replace(/\s+/g, ' ')
    : `no answer from ${config.baseUrl}: ${failureReason(error)}`;
  return { area: AREA, check, status: 'problem', detail: withoutSecrets(detail, [config.appSecret]), ...(fix ? { fix } : {}) };
}

function refused(check: string, code: number | undefined, msg: string | undefined): DoctorCheck {
  return {
    area: AREA,
    check,
    status: 'problem',
    detail: `refused: code ${code ?? '?'} ${msg ?? ''}`.trim(),
    fix: 'Copy App ID and App Secret again from Credentials & Basic Info in the developer console (and check FEISHU_DOMAIN: feishu or lark).',
  };
}

async function credentialsCheck(client: Client, config: FeishuConfig): Promise<DoctorCheck> {
  const check = `app ${config.appId} (tenant access token)`;
  try {
    const answer = TokenAnswerSchema.parse(
      await client.auth.tenantAccessToken.internal({ data: { app_id: config.appId, app_secret: config.appSecret } }),
    );
    if (answer.code === 0) return { area: AREA, check, status: 'ok', detail: `${config.baseUrl} issued a tenant access token` };
    return refused(check, answer.code, answer.msg);
  } catch (error) {
    // The SDK asks for a token of its own first, and throws its refusal as text.
    const said = /failed to get tenant_access_token, code: (-?\d+), msg: (.*)$/.exec(error instanceof Error ? error.message : '');
    if (said) return refused(check, Number(said[1]), withoutSecrets(said[2]!, [config.appSecret]));
    return failed(check, error, config, 'Check FEISHU_DOMAIN and the network.');
  }
}

async function botCheck(client: Client, config: FeishuConfig): Promise<DoctorCheck> {
  const check = 'bot (GET /open-apis/bot/v3/info)';
  const fix = 'Add the Bot capability to the app (Features > Bot), then publish a version.';
  try {
    const answer = BotInfoSchema.parse(await client.request({ method: 'GET', url: '/open-apis/bot/v3/info' }));
    if (answer.code !== 0 || !answer.bot?.open_id) {
      return { area: AREA, check, status: 'problem', detail: `no bot: code ${answer.code ?? '?'} ${answer.msg ?? ''}`.trim(), fix };
    }
    return { area: AREA, check, status: 'ok', detail: `${answer.bot.app_name ?? 'the bot'} (open_id ${answer.bot.open_id})` };
  } catch (error) {
    return failed(check, error, config, fix);
  }
}

async function scopesCheck(client: Client, config: FeishuConfig): Promise<DoctorCheck> {
  const check = 'scopes';
  let scopes: { scope_name: string; grant_status: number }[];
  try {
    const answer = await client.application.v6.scope.list({});
    if (answer.code !== 0 || !answer.data?.scopes) throw new Error(`code ${answer.code ?? '?'} ${answer.msg ?? ''}`);
    scopes = answer.data.scopes;
  } catch (error) {
    const answer = platformAnswer(error);
    const why = answer ? `code ${answer.code ?? answer.status ?? '?'}` : withoutSecrets(failureReason(error), [config.appSecret]);
    return {
      area: AREA,
      check,
      status: 'skipped',
      detail: `the API does not tell (${why}); check Permissions & Scopes in the console: ${NEEDED_SCOPES.join(', ')}`,
    };
  }
  const granted = new Set(scopes.filter((scope) => scope.grant_status === GRANTED).map((scope) => scope.scope_name));
  const missing = NEEDED_SCOPES.filter((scope) => !granted.has(scope));
  if (missing.length === 0)
    return { area: AREA, check, status: 'ok', detail: `${granted.size} granted, including ${NEEDED_SCOPES.join(', ')}` };
  return {
    area: AREA,
    check,
    status: 'problem',
    detail: `not granted: ${missing.join(', ')}`,
    fix: 'Add them under Permissions & Scopes, publish a version, and have the tenant admin approve it.',
  };
}

/** The SDK's requests have no timeout of their own (its HTTP client is shared by the process): a check that takes too long is a problem. */
async function bounded<T extends DoctorCheck | DoctorCheck[]>(
  check: Promise<T>,
  timeoutMs: number,
  name: string,
  config: FeishuConfig,
): Promise<T | DoctorCheck> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<DoctorCheck>((resolve) => {
    timer = setTimeout(
      () => resolve({ area: AREA, check: name, status: 'problem', detail: `no answer from ${config.baseUrl} within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([check, late]);
  } finally {
    clearTimeout(timer);
  }
}

export const feishuDoctor: ChannelDoctor = {
  kind: AREA,
  async check({ env, timeoutMs }) {
    const loaded = channelConfig(AREA, () => loadFeishuConfig(env));
    if ('problem' in loaded) return [loaded.problem];
    const { config } = loaded;
    if (!config) return [];
    const client = new Client({
      appId: config.appId,
      appSecret: config.appSecret,
      domain: config.baseUrl,
      cache: memoryCache(),
      logger: silentLogger(),
      loggerLevel: LoggerLevel.fatal,
    });
    const credentials = await bounded(credentialsCheck(client, config), timeoutMs, 'credentials', config);
    if (credentials.status !== 'ok') return [credentials];
    return [
      credentials,
      await bounded(botCheck(client, config), timeoutMs, 'bot', config),
      await bounded(scopesCheck(client, config), timeoutMs, 'scopes', config),
      // The app's information and, in webhook mode, the URL check: two requests in a row.
      await bounded(subscriptionChecks(client, config, timeoutMs), 2 * timeoutMs, 'events and callbacks', config),
    ].flat();
  },
};
