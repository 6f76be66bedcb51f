// Runs one raw update through the adapter's own update router (grammY filter queries → classification),
// without a network: what the adapter would make of it.
import { Api, Context } from 'grammy';
import type { Update, UserFromGetMe } from 'grammy/types';
import type { AccessPolicy, BotIdentity, ClassifiedUpdate } from '../../adapters/telegram/inbound.ts';
import { updateRouter } from '../../adapters/telegram/updates.ts';

const api = new Api('1:test');

export async function classifyUpdate(raw: unknown, bot: BotIdentity, access: AccessPolicy, channel: string): Promise<ClassifiedUpdate> {
  let result: ClassifiedUpdate | undefined;
  const router = updateRouter({
    identity: () => bot,
    access,
    channel,
    handle: async (update) => {
      result = update;
    },
  });
  const me = { id: bot.id, is_bot: true, first_name: 'Bot', username: bot.username } as UserFromGetMe;
  await router.middleware()(new Context(raw as Update, api, me), async () => {});
  if (!result) throw new Error('the router handed nothing on');
  return result;
}
