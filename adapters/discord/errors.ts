// Discord failures in words an operator can act on: gateway close codes that stop start-up, and
// REST errors as the core's DeliveryError kinds (a channel the bot lost is logged once, not
// retried forever).
import { DiscordAPIError, GatewayCloseCodes, HTTPError, RateLimitError } from 'discord.js';
import { DeliveryError, type DeliveryFailureKind } from '../../src/core/delivery.ts';

export class DiscordStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiscordStartError';
  }
}

/** One line saying what to change, for the close codes that retrying cannot fix. */
export function closeCodeMessage(code: number): string | undefined {
  switch (code) {
    case GatewayCloseCodes.AuthenticationFailed:
      return 'Discord rejected DISCORD_BOT_TOKEN (gateway close 4004 "authentication failed"): copy a fresh token from the Developer Portal (your application → Bot → Reset Token)';
    case GatewayCloseCodes.DisallowedIntents:
      return 'Discord refused the MessageContent intent (gateway close 4014 "disallowed intents"): enable "Message Content Intent" under Privileged Gateway Intents in the Developer Portal (your application → Bot), then restart';
    case GatewayCloseCodes.InvalidIntents:
      return 'Discord refused the requested intents (gateway close 4013); this is a bug in Parley, please report it';
    case GatewayCloseCodes.ShardingRequired:
      return 'Discord requires sharding for this bot (gateway close 4011, more than 2500 servers); not supported yet';
    default:
      return undefined;
  }
}

/** The channel is lost to the bot: unknown channel, missing access or permissions, DMs closed, thread archived or locked. */
const CHANNEL_LOST_CODES = new Set([10003, 50001, 50007, 50013, 50083, 160005]);
const UNKNOWN_MESSAGE = 10008;
/** Invalid Form Body (a field too long) and Request entity too large. */
const TOO_LARGE = (error: DiscordAPIError) =>
  error.code === 40005 || (error.code === 50035 && /BASE_TYPE_MAX_LENGTH|or fewer in length/i.test(JSON.stringify(error.rawError)));

export function isChannelLost(error: unknown): boolean {
  return error instanceof DiscordAPIError && typeof error.code === 'number' && CHANNEL_LOST_CODES.has(error.code);
}

function kindOf(error: unknown): { kind: DeliveryFailureKind; retryAfterMs?: number } {
  if (error instanceof RateLimitError) return { kind: 'rate_limited', retryAfterMs: error.retryAfter };
  if (error instanceof DiscordAPIError) {
    if (error.status === 429) {
      const seconds = Number((error.rawError as { retry_after?: unknown }).retry_after);
      return { kind: 'rate_limited', retryAfterMs: Number.isFinite(seconds) ? Math.ceil(seconds * 1000) : 1_000 };
    }
    if (isChannelLost(error)) return { kind: 'forbidden' };
    if (error.code === UNKNOWN_MESSAGE) return { kind: 'gone' };
    if (TOO_LARGE(error)) return { kind: 'too_large' };
    return { kind: error.status >= 500 ? 'transient' : 'fatal' };
  }
  if (error instanceof HTTPError) return { kind: error.status >= 500 || error.status === 408 ? 'transient' : 'fatal' };
  // Timeouts (AbortError) and network failures: the request may be tried again.
  return { kind: 'transient' };
}

/** A REST failure as the core's DeliveryError, with a message that never carries the token. */
export function toDeliveryError(error: unknown, token: string): DeliveryError {
  if (error instanceof DeliveryError) return error;
  const { kind, retryAfterMs } = kindOf(error);
  return new DeliveryError(`Discord: ${safeErrorMessage(error, token)}`, kind, retryAfterMs === undefined ? {} : { retryAfterMs });
}

export function safeErrorMessage(error: unknown, token: string): string {
  const text = error instanceof Error ? error.message : String(error);
  return token ? text.split(token).join('[token]') : text;
}
