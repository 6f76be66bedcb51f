// `parley doctor`'s view of how Feishu delivers to the app: the event and callback subscriptions
// as the open platform reports the app's own configuration (GET /open-apis/application/v6/
// applications/:app_id, which needs the scope application:application:self_manage or
// admin:app.info:readonly), and in webhook mode whether the callback URL Feishu calls answers its
// URL check as Parley does. Without card.action.trigger button clicks never arrive and nothing
// else warns, so this is the check that names it. What the API does not tell is said, not guessed.
import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@larksuiteoapi/node-sdk';
import { z } from 'zod';
import { type DoctorCheck, failureReason, withoutSecrets } from '../../src/core/doctor.ts';
import type { FeishuConfig } from './config.ts';
import { WEBHOOK_PATH } from './webhook.ts';

const AREA = 'feishu';
const MESSAGE_EVENT = 'im.message.receive_v1';
const CLICK_CALLBACK = 'card.action.trigger';
/** Either scope lets an app read its own information (the API's documentation, "获取应用信息"). */
const SELF_SCOPE = 'application:application:self_manage';

const Subscription = z.looseObject({
  subscription_type: z.string().nullish(),
  callback_type: z.string().nullish(),
  request_url: z.string().nullish(),
  subscribed_events: z.array(z.string()).nullish(),
  subscribed_callbacks: z.array(z.string()).nullish(),
});
const AppInfoSchema = z.looseObject({
  code: z.number().optional(),
  msg: z.string().optional(),
  data: z
    .looseObject({
      app: z
        .looseObject({ event: Subscription.nullish(), callback: Subscription.nullish(), callback_info: Subscription.nullish() })
        .nullish(),
    })
    .nullish(),
});
type AppSubscriptions = NonNullable<NonNullable<z.infer<typeof AppInfoSchema>['data']>['app']>;
const ErrorBodySchema = z.looseObject({ code: z.number().optional(), msg: z.string().optional() });

/** Feishu's names for how a subscription is delivered, as FEISHU_MODE says it. */
function modeOf(type: string | null | undefined): 'ws' | 'webhook' | undefined {
  if (type === 'websocket') return 'ws';
  if (type === 'webhook') return 'webhook';
  return undefined;
}

const MODE_NAMES = { ws: 'long connection (FEISHU_MODE=ws)', webhook: 'request URL (FEISHU_MODE=webhook)' } as const;

function refusalOf(error: unknown): string {
  const data = (error as { response?: { status?: number; data?: unknown } } | undefined)?.response;
  if (!data) return failureReason(error);
  const body = ErrorBodySchema.safeParse(data.data);
  return body.success && body.data.code !== undefined ? `code ${body.data.code}` : `HTTP ${data.status ?? '?'}`;
}

async function appSubscriptions(client: Client, config: FeishuConfig): Promise<AppSubscriptions | string> {
  try {
    const answer = AppInfoSchema.parse(
      await client.application.v6.application.get({ path: { app_id: config.appId }, params: { lang: 'en_us' } }),
    );
    if (answer.code !== 0 || !answer.data?.app) return `code ${answer.code ?? '?'}`;
    return answer.data.app;
  } catch (error) {
    return withoutSecrets(refusalOf(error), [config.appSecret]);
  }
}

function pathProblem(requestUrl: string | null | undefined): string | undefined {
  if (!requestUrl) return 'no request URL is set';
  try {
    const path = new URL(requestUrl).pathname;
    return path === WEBHOOK_PATH ? undefined : `the request URL ${requestUrl} does not end in ${WEBHOOK_PATH}`;
  } catch {
    return `the request URL "${requestUrl.slice(0, 80)}" is not a URL`;
  }
}

function eventsCheck(app: AppSubscriptions, config: FeishuConfig): DoctorCheck {
  const check = `events (${MESSAGE_EVENT})`;
  const event = app.event;
  if (!event?.subscribed_events)
    return { area: AREA, check, status: 'warning', detail: 'the API did not say which events the app subscribes to' };
  const fix = `Events & Callbacks > Event configuration: add ${MESSAGE_EVENT} (Receive messages), then publish a version.`;
  if (!event.subscribed_events.includes(MESSAGE_EVENT))
    return { area: AREA, check, status: 'problem', detail: `not subscribed: the bot never hears a message`, fix };
  const mode = modeOf(event.subscription_type);
  if (mode && mode !== config.mode.kind)
    return {
      area: AREA,
      check,
      status: 'problem',
      detail: `events arrive by ${MODE_NAMES[mode]}, but Parley runs with ${MODE_NAMES[config.mode.kind]}`,
      fix: `Set FEISHU_MODE=${mode}, or change the subscription mode under Events & Callbacks.`,
    };
  const wrongPath = config.mode.kind === 'webhook' && (event.request_url || mode) ? pathProblem(event.request_url) : undefined;
  if (wrongPath)
    return { area: AREA, check, status: 'problem', detail: wrongPath, fix: `Set the request URL to https://<your host>${WEBHOOK_PATH}.` };
  return { area: AREA, check, status: 'ok', detail: `subscribed${mode ? `, by ${MODE_NAMES[mode]}` : ''}` };
}

function callbacksCheck(app: AppSubscriptions, config: FeishuConfig): { check: DoctorCheck; requestUrl?: string } {
  const check = `callbacks (${CLICK_CALLBACK})`;
  const callback = app.callback_info ?? app.callback;
  if (!callback?.subscribed_callbacks)
    return { check: { area: AREA, check, status: 'warning', detail: 'the API did not say which callbacks the app subscribes to' } };
  if (!callback.subscribed_callbacks.includes(CLICK_CALLBACK))
    return {
      check: {
        area: AREA,
        check,
        status: 'problem',
        detail: 'not subscribed: button clicks (approvals) never arrive, and Feishu shows no error',
        fix: `Events & Callbacks > Callback configuration: add ${CLICK_CALLBACK} (Card action trigger), then publish a version.`,
      },
    };
  const mode = modeOf(callback.callback_type);
  if (mode && mode !== config.mode.kind)
    return {
      check: {
        area: AREA,
        check,
        status: 'problem',
        detail: `clicks arrive by ${MODE_NAMES[mode]}, but Parley runs with ${MODE_NAMES[config.mode.kind]}: they never reach it`,
        fix: `Under Callback configuration choose ${MODE_NAMES[config.mode.kind].split(' (')[0]}, or set FEISHU_MODE=${mode}.`,
      },
    };
  if (config.mode.kind === 'webhook' && (callback.request_url || mode)) {
    const wrongPath = pathProblem(callback.request_url);
    if (wrongPath)
      return {
        check: {
          area: AREA,
          check,
          status: 'problem',
          detail: wrongPath,
          fix: `Under Callback configuration set the request URL to https://<your host>${WEBHOOK_PATH} (the same as for events).`,
        },
      };
    return {
      check: { area: AREA, check, status: 'ok', detail: `subscribed, by request URL ${callback.request_url}` },
      ...(callback.request_url ? { requestUrl: callback.request_url } : {}),
    };
  }
  return { check: { area: AREA, check, status: 'ok', detail: `subscribed${mode ? `, by ${MODE_NAMES[mode]}` : ''}` } };
}

/** What Feishu sends with an encrypt key: AES-256-CBC under sha256(key), a random IV in front, base64. */
function encrypted(plain: string, encryptKey: string): string {
  const key = createHash('sha256').update(encryptKey).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final()]).toString('base64');
}

/**
 * Sends the URL check Feishu sends when the request URL is saved (a challenge with the verification
 * token, encrypted with the encrypt key) to the callback URL, and expects the challenge back.
 */
async function urlCheck(requestUrl: string, config: FeishuConfig, timeoutMs: number): Promise<DoctorCheck> {
  const check = 'request URL answers';
  const challenge = randomUUID();
  const plain = JSON.stringify({ type: 'url_verification', challenge, token: config.verificationToken ?? '' });
  const body = config.encryptKey ? JSON.stringify({ encrypt: encrypted(plain, config.encryptKey) }) : plain;
  let status: number;
  let answer: unknown;
  try {
    const response = await fetch(requestUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = response.status;
    answer = await response.json().catch(() => undefined);
  } catch (error) {
    return {
      area: AREA,
      check,
      status: 'warning',
      detail: `no answer at ${requestUrl} from here (${failureReason(error)})`,
      fix: 'Fine while Parley is not running; otherwise check the HTTPS proxy in front of PARLEY_HTTP_HOST/PORT.',
    };
  }
  const echoed = typeof answer === 'object' && answer !== null && (answer as { challenge?: unknown }).challenge === challenge;
  if (status === 200 && echoed) return { area: AREA, check, status: 'ok', detail: `${requestUrl} answers the URL check` };
  const why =
    status === 401
      ? 'refused the verification token or encrypt key: the Parley there runs with other FEISHU_VERIFICATION_TOKEN / FEISHU_ENCRYPT_KEY'
      : status === 404 || status === 405
        ? 'has no Feishu webhook at that path'
        : status === 503
          ? 'is starting or stopping'
          : 'did not answer as Parley does';
  return {
    area: AREA,
    check,
    status: 'problem',
    detail: `${requestUrl} answered ${status}: ${why}`,
    fix: 'Copy Verification Token and Encrypt Key from Events & Callbacks > Encryption strategy, and point the request URL at Parley.',
  };
}

export async function subscriptionChecks(client: Client, config: FeishuConfig, timeoutMs: number): Promise<DoctorCheck[]> {
  const app = await appSubscriptions(client, config);
  if (typeof app === 'string') {
    return [
      {
        area: AREA,
        check: 'events and callbacks',
        status: 'warning',
        detail: `the API does not tell the app's subscriptions (${app}); without ${CLICK_CALLBACK} button clicks never arrive`,
        fix: `Grant the scope ${SELF_SCOPE} so doctor can check them, or check by hand under Events & Callbacks: ${MESSAGE_EVENT} and, under Callback configuration, ${CLICK_CALLBACK}.`,
      },
    ];
  }
  const callbacks = callbacksCheck(app, config);
  const checks = [eventsCheck(app, config), callbacks.check];
  if (callbacks.requestUrl) checks.push(await urlCheck(callbacks.requestUrl, config, timeoutMs));
  return checks;
}
