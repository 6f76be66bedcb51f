// Discord failures in words an operator can act on: gateway close codes that stop start-up, and
// REST errors that mean "this channel is gone for me" (logged once, not retried forever).
import { DiscordAPIError, GatewayCloseCodes } from 'discord.js';

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

/** Access lost for good: unknown channel/message, missing access or permissions, blocked DMs. */
const GONE_CODES = new Set([10003, 10008, 50001, 50007, 50013]);

export function isGone(error: unknown): boolean {
  return error instanceof DiscordAPIError && typeof error.code === 'number' && GONE_CODES.has(error.code);
}

export function safeErrorMessage(error: unknown, token: string): string {
  const text = error instanceof Error ? error.message : String(error);
  return token ? text.split(token).join('[token]') : text;
}

export function toSafeError(error: unknown, token: string): Error {
  const safe = new Error(safeErrorMessage(error, token));
  safe.name = error instanceof Error ? error.name : 'Error';
  return safe;
}
