// `parley doctor`'s Telegram checks, through grammY against the configured API root: the token
// (getMe), and the webhook as Telegram sees it (getWebhookInfo: its URL and its last delivery
// error). The token never appears in what is reported.
import { Api, GrammyError } from 'grammy';
import { type ChannelDoctor, channelConfig, type DoctorCheck, failureReason, maskSecret, withoutSecrets } from '../../src/core/doctor.ts';
import { loadTelegramConfig, type TelegramConfig } from './config.ts';

const AREA = 'telegram';

function problem(check: string, error: unknown, token: string): DoctorCheck {
  if (error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404)) {
    return {
      area: AREA,
      check,
      status: 'problem',
      detail: `Telegram refused the token (${error.error_code} ${error.description})`,
      fix: 'Copy the token again from @BotFather (/token) into TELEGRAM_BOT_TOKEN.',
    };
  }
  const reason = error instanceof GrammyError ? `${error.error_code} ${error.description}` : failureReason(error);
  return {
    area: AREA,
    check,
    status: 'problem',
    detail: `no answer from the Bot API: ${withoutSecrets(reason, [token])}`,
    fix: 'Check the network (and TELEGRAM_API_ROOT when set).',
  };
}

async function webhookCheck(api: Api, config: TelegramConfig): Promise<DoctorCheck> {
  const check = 'webhook (getWebhookInfo)';
  const info = await api.getWebhookInfo();
  if (config.mode.kind === 'polling') {
    return info.url
      ? { area: AREA, check, status: 'ok', detail: 'polling mode; a webhook is set now and is removed when Parley starts polling' }
      : { area: AREA, check, status: 'ok', detail: 'polling mode (no webhook set)' };
  }
  const pending = info.pending_update_count;
  if (info.last_error_message) {
    const when = info.last_error_date ? ` at ${new Date(info.last_error_date * 1000).toISOString()}` : '';
    return {
      area: AREA,
      check,
      status: 'problem',
      detail: `Telegram's last delivery to ${info.url || config.mode.url} failed${when}: ${info.last_error_message} (${pending} update(s) waiting)`,
      fix: 'TELEGRAM_WEBHOOK_URL must reach PARLEY_HTTP_HOST/PORT over https from the internet (a reverse proxy); Parley sets the webhook at start.',
    };
  }
  if (info.url && info.url !== config.mode.url) {
    return {
      area: AREA,
      check,
      status: 'warning',
      detail: `the webhook is ${info.url}, not TELEGRAM_WEBHOOK_URL (${config.mode.url})`,
      fix: 'Parley sets it again at start; another program using this token would take it back.',
    };
  }
  return {
    area: AREA,
    check,
    status: 'ok',
    detail: info.url ? `${info.url}, no delivery error, ${pending} update(s) waiting` : 'not set yet (Parley sets it at start)',
  };
}

export const telegramDoctor: ChannelDoctor = {
  kind: AREA,
  async check({ env, timeoutMs }) {
    const loaded = channelConfig(AREA, () => loadTelegramConfig(env));
    if ('problem' in loaded) return [loaded.problem];
    const { config } = loaded;
    if (!config) return [];
    const api = new Api(config.token, { apiRoot: config.apiRoot, timeoutSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)) });
    const tokenCheck = `token ${maskSecret(config.token)} (getMe)`;
    let me: Awaited<ReturnType<Api['getMe']>>;
    try {
      me = await api.getMe();
    } catch (error) {
      return [problem(tokenCheck, error, config.token)];
    }
    const privacy = me.can_read_all_group_messages
      ? 'reads every group message (privacy mode off)'
      : 'privacy mode on: in groups it sees mentions, replies to it and commands';
    const checks: DoctorCheck[] = [{ area: AREA, check: tokenCheck, status: 'ok', detail: `@${me.username} (id ${me.id}); ${privacy}` }];
    try {
      checks.push(await webhookCheck(api, config));
    } catch (error) {
      checks.push(problem('webhook (getWebhookInfo)', error, config.token));
    }
    return checks;
  },
};
