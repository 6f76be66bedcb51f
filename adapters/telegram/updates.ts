// Which updates the adapter handles, as grammY filter queries: messages, button presses (with and
// without data), and everything else logged as not handled. Each is classified (inbound.ts) and
// handed on; the same router serves long polling, the webhook and the tests.
import { Composer, type Context } from 'grammy';
import type { AccessPolicy, BotIdentity, ClassifiedUpdate } from './inbound.ts';
import { classifyCallback, classifyMessage } from './inbound.ts';

export interface UpdateRouterOptions {
  /** The bot's account; undefined until started (updates are then dropped). */
  identity(): BotIdentity | undefined;
  access: AccessPolicy;
  /** The adapter's instance id. */
  channel: string;
  handle(update: ClassifiedUpdate): Promise<void>;
}

function isUpdateId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function updateRouter(options: UpdateRouterOptions): Composer<Context> {
  const router = new Composer<Context>();
  const { access, channel, handle } = options;
  // grammY passes on whatever arrives: an update that is not an object with an id goes no further.
  router.use(async (ctx, next) => {
    const update: unknown = ctx.update;
    if (typeof update !== 'object' || update === null || Array.isArray(update))
      return handle({ kind: 'malformed', reason: 'update: not an object' });
    if (!isUpdateId(ctx.update.update_id)) return handle({ kind: 'malformed', reason: 'update: update_id is not a whole number' });
    if (!options.identity()) return;
    await next();
  });
  router.on('message', (ctx) => handle(classifyMessage(ctx.update.update_id, ctx.message, options.identity()!, access, channel)));
  router.on('callback_query:data', (ctx) =>
    handle(classifyCallback(ctx.update.update_id, ctx.callbackQuery, options.identity()!, access, channel)),
  );
  router.on('callback_query', (ctx) => {
    const query: unknown = ctx.callbackQuery;
    const id =
      typeof query === 'object' && query !== null && 'id' in query && typeof query.id === 'string' && query.id ? query.id : undefined;
    return handle(
      id
        ? { kind: 'ignored', reason: 'button press without data', callbackQueryId: id }
        : { kind: 'malformed', reason: `update ${ctx.update.update_id} callback_query: no id` },
    );
  });
  router.on('edited_message', () => handle({ kind: 'ignored', reason: 'edited message' }));
  router.use((ctx) => handle({ kind: 'ignored', reason: `update ${ctx.update.update_id} of a kind I do not handle` }));
  return router;
}
