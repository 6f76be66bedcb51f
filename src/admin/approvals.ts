// The admin pages' approvals: pending requests across every channel, decisions through the
// approvals service's exactly-once path (the one a button press takes), the audit log, and the
// "always allow" grants with revoke.
import { type AdminActor, type AdminApproval, type AdminApprovals, AdminInputError } from '../core/admin.ts';
import type { ApprovalService } from '../approvals/service.ts';
import type { Store } from '../store/store.ts';
import type { ApprovalRecord } from '../store/types.ts';

/** Markdown escapes the service puts in its chat texts, removed for a page that shows plain text. */
const plain = (text: string) => text.replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1');

export function adminApprovals({ store, approvals }: { store: Store; approvals: ApprovalService }): AdminApprovals {
  const sessionKeys = new Map<string, string>();
  const keyOf = async (sessionId: string) => {
    let key = sessionKeys.get(sessionId);
    if (key === undefined) {
      key = (await store.sessions.get(sessionId))?.key ?? sessionId;
      sessionKeys.set(sessionId, key);
    }
    return key;
  };
  const view = async (a: ApprovalRecord): Promise<AdminApproval> => ({
    code: a.code,
    toolName: a.toolName,
    arguments: a.arguments,
    status: a.status,
    requester: a.requester.displayName,
    where: await keyOf(a.sessionId),
    ...(a.decidedBy ? { decidedBy: a.decidedBy.displayName } : {}),
    ...(a.reason ? { reason: a.reason } : {}),
    expiresAt: a.expiresAt,
    createdAt: a.createdAt,
  });
  return {
    async pending() {
      return Promise.all((await store.approvals.list({ status: 'pending', limit: 500 })).map(view));
    },
    async recent(limit) {
      return Promise.all((await store.approvals.list({ limit })).map(view));
    },
    async decide(code, choice, actor: AdminActor, reason) {
      const result = await approvals.decideAsOperator(code, actor, choice, reason, true);
      return { ok: result.ok, message: plain(result.message) };
    },
    async audit(limit) {
      return (await store.audit.list({ limit })).map((e) => ({
        at: e.at,
        who: e.actor.displayName,
        action: e.action,
        outcome: e.outcome,
        ...(e.toolName ? { toolName: e.toolName } : {}),
        ...(e.detail ? { detail: e.detail } : {}),
      }));
    },
    async grants() {
      const grants = await store.grants.list();
      return Promise.all(
        grants.map(async (g) => ({ session: await keyOf(g.sessionId), toolName: g.toolName, grantedBy: g.grantedBy, since: g.createdAt })),
      );
    },
    async revoke(sessionKey, toolName, actor) {
      const session = await store.sessions.getByKey(sessionKey);
      if (!session) throw new AdminInputError(`no session with key ${sessionKey}`, 404);
      const removed = await store.grants.revoke(session.id, toolName);
      if (removed === 0) throw new AdminInputError(`${toolName} is not granted in ${sessionKey}`, 404);
      await store.audit.record({
        actor: { id: `${actor.channel}:${actor.id}`, displayName: actor.displayName },
        action: 'revoke',
        outcome: 'revoked',
        toolName,
        detail: sessionKey,
      });
      return removed;
    },
  };
}
