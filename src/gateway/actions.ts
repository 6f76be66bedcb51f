// Button presses: the approvals handler takes the ones it knows; any other button is told it is
// no longer active.
import { userMessageOf } from '../core/errors.ts';
import type { Action } from '../core/types.ts';
import type { Logger } from '../log.ts';
import type { ApprovalHandler } from './ports.ts';

export async function handleAction(action: Action, approvals: ApprovalHandler | undefined, log: Logger): Promise<void> {
  try {
    const handled = await approvals?.handleAction(action);
    if (!handled) await action.reply.ack('This button is no longer active.');
  } catch (error) {
    log.error({ err: error }, 'handling a button press failed');
    await action.reply.ack(userMessageOf(error)).catch(() => {});
  }
}
