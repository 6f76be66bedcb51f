// Button presses: validated like inbound messages, then the approvals handler takes the ones it
// knows; any other button is told it is no longer active.
import { userMessageOf } from '../core/errors.ts';
import { DEFAULT_LOCALE, type Locale, t } from '../core/i18n/index.ts';
import { ActionSchema, InteractionReplySchema, type Action } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { ApprovalHandler } from './ports.ts';

/**
 * `action.locale` is passed on resolved (one of the core's locales) when the platform or the chat
 * tells it, else unset (the approvals handler then writes in the language of the approval's turn).
 */
export async function handleAction(
  raw: Action,
  approvals: ApprovalHandler | undefined,
  log: Logger,
  localeOfPress: (press: Action) => Locale | undefined,
): Promise<void> {
  const parsed = ActionSchema.safeParse(raw);
  if (!parsed.success) {
    log.warn(
      { issues: parsed.error.issues.map((i) => ({ path: i.path, message: i.message })) },
      'dropped a malformed button press from an adapter',
    );
    // Still answer the clicker when the adapter gave a way to (the platform waits for it).
    const reply = InteractionReplySchema.safeParse((raw as { reply?: unknown } | undefined)?.reply);
    if (reply.success) await reply.data.ack(t(DEFAULT_LOCALE, 'chat.inactiveButton')).catch(() => {});
    return;
  }
  const locale = localeOfPress(parsed.data);
  const { locale: _tag, ...rest } = parsed.data;
  const action: Action = { ...rest, ...(locale ? { locale } : {}) };
  try {
    const handled = await approvals?.handleAction(action);
    if (!handled) await action.reply.ack(t(locale ?? DEFAULT_LOCALE, 'chat.inactiveButton'));
  } catch (error) {
    log.error({ err: error }, 'handling a button press failed');
    await action.reply.ack(userMessageOf(error, locale ?? DEFAULT_LOCALE)).catch(() => {});
  }
}
