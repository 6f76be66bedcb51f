// The fake's application routes: GET /applications/@me (its flags say whether the Message Content
// intent is on, as the Developer Portal's switch does) and GET of the registered slash commands.
// Attached to FakeDiscord's REST router; undefined for any other request.
import type { DUser } from './payloads.ts';

/** Discord's application flag for the Message Content intent of an app under 100 servers (verified apps: 1 << 18). */
const GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19;

interface ApplicationState {
  readonly bot: DUser;
  readonly messageContent: boolean;
  readonly commands: ReadonlyMap<string, unknown[]>;
}

export function applicationRoute(fake: ApplicationState, method: string, path: string): { body: unknown } | undefined {
  if (method !== 'GET') return undefined;
  if (path === '/applications/@me') {
    return {
      body: {
        id: fake.bot.id,
        name: fake.bot.username,
        bot_public: true,
        bot_require_code_grant: false,
        // Under 100 servers and unverified: the limited flag, as the portal sets it.
        flags: fake.messageContent ? GATEWAY_MESSAGE_CONTENT_LIMITED : 0,
        bot: fake.bot,
      },
    };
  }
  const m = /^\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/.exec(path);
  if (m && m[1] === fake.bot.id) return { body: fake.commands.get(m[2] ?? 'global') ?? [] };
  return undefined;
}
