// Button presses: validated like inbound messages, then the approvals handler takes the ones it
// knows; any other button is told it is no longer active.
import { userMessageOf } from '../core/errors.ts';
import { ActionSchema, InteractionReplySchema, type Action } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { ApprovalHandler } from './ports.ts';

const INACTIVE = 'This button is no longer active.';

export async function handleAction(raw: Action, approvals: ApprovalHandler | undefined, log: Logger): Promise<void> {
  const parsed = ActionSchema.safeParse(raw);
  if (!parsed.success) {
    log.warn(
      { issues: parsed.error.issues.map((i) => ({ path: i.path, message: i.message })) },
      'dropped a malformed button press from an adapter',
    );
    // Still answer the clicker when the adapter gave a way to (the platform waits for it).
    const reply = InteractionReplySchema.safeParse((raw as { reply?: unknown } | undefined)?.reply);
    if (reply.success) await reply.data.ack(INACTIVE).catch(() => {});
    return;
  }
  const action = parsed.data;
  try {
    const handled = await approvals?.handleAction(action);
    if (!handled) await action.reply.ack(INACTIVE);
  } catch (error) {
    log.error({ err: error }, 'handling a button press failed');
    await action.reply.ack(userMessageOf(error)).catch(() => {});
  }
}
