// Approvals: what waits for a decision across every channel (who asked, what, where, until when)
// with Approve and Deny (the approvals service's exactly-once decision, as a button press), recent
// requests, the audit log, and the "always allow" grants with revoke.
import { z } from 'zod';
import { t } from '../../../src/core/i18n/index.ts';
import { type AdminContext, formOf, htmlPage, queryOf } from './context.ts';
import { html } from './html.ts';
import { page, table, when } from './layout.ts';

const SECTION = '/admin/approvals';

function argumentsOf(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

export async function approvalsPage(a: AdminContext, outcome?: { ok: boolean; message: string }): Promise<Response> {
  const { revoked } = queryOf(a.c, z.object({ revoked: z.string().max(300).optional() }));
  const [pending, recent, audit, grants] = await Promise.all([
    a.port.approvals.pending(),
    a.port.approvals.recent(20),
    a.port.approvals.audit(50),
    a.port.approvals.grants(),
  ]);
  const cards = pending.map(
    (p) => html`<article class="card approval" data-code="${p.code}">
<h3>${p.toolName} <span class="muted">${p.code}</span></h3>
<p>${p.requester} · <span class="where">${p.where}</span> · expires ${when(p.expiresAt)} UTC</p>
<pre class="args">${argumentsOf(p.arguments)}</pre>
<form method="post" action="/admin/approvals/decide" class="buttons">
<input type="hidden" name="code" value="${p.code}">
<input type="text" name="reason" maxlength="500" placeholder="Reason (optional)" title="Recorded in the audit log; on Deny the model is told" aria-label="reason">
<button type="submit" name="choice" value="approve" class="primary">${t(a.locale, 'webAdmin.approvals.approve')}</button>
<button type="submit" name="choice" value="deny" class="danger">${t(a.locale, 'webAdmin.approvals.deny')}</button>
</form>
</article>`,
  );
  const body = html`<h2>${t(a.locale, 'webAdmin.approvals.pending')} (${pending.length})</h2>
${cards.length ? cards : html`<p class="muted">${t(a.locale, 'webAdmin.approvals.none')}</p>`}
<h2>${t(a.locale, 'webAdmin.approvals.grants')}</h2>
${table(
  ['session', 'tool', 'granted by', 'since', ''],
  grants.map((g) => [
    g.session,
    g.toolName,
    g.grantedBy,
    when(g.since),
    html`<form method="post" action="/admin/approvals/revoke" class="inline"><input type="hidden" name="session" value="${g.session}"><input type="hidden" name="tool" value="${g.toolName}"><button type="submit">${t(a.locale, 'webAdmin.approvals.revoke')}</button></form>`,
  ]),
  'No grants.',
)}
<h2>${t(a.locale, 'webAdmin.approvals.recent')}</h2>
${table(
  ['code', 'tool', 'status', 'requested by', 'decided by', 'where', 'when'],
  recent.map((r) => [r.code, r.toolName, r.status, r.requester, r.decidedBy ?? '', r.where, when(r.createdAt)]),
  'No approvals yet.',
)}
<h2>${t(a.locale, 'webAdmin.approvals.audit')}</h2>
${table(
  ['when', 'who', 'action', 'outcome', 'tool', 'detail'],
  audit.map((e) => [when(e.at), e.who, e.action, e.outcome, e.toolName ?? '', e.detail ?? '']),
  'The audit log is empty.',
  'audit',
)}`;
  const notice = outcome?.ok ? outcome.message : revoked ? `Revoked ${revoked}.` : undefined;
  return htmlPage(
    a.c,
    page(
      {
        locale: a.locale,
        title: t(a.locale, 'webAdmin.nav.approvals'),
        section: SECTION,
        ...(notice ? { notice } : {}),
        ...(outcome && !outcome.ok ? { error: outcome.message } : {}),
      },
      body,
    ),
  );
}

const DecideForm = z.object({
  code: z.string().trim().min(1).max(40),
  choice: z.enum(['approve', 'deny']),
  reason: z.string().trim().max(500).optional(),
});

export async function approvalsDecide(a: AdminContext): Promise<Response> {
  const form = await formOf(a.c, DecideForm);
  const outcome = await a.port.approvals.decide(form.code, form.choice, a.actor, form.reason || undefined);
  return approvalsPage(a, outcome);
}

const RevokeForm = z.object({ session: z.string().min(1).max(300), tool: z.string().min(1).max(200) });

export async function approvalsRevoke(a: AdminContext): Promise<Response> {
  const form = await formOf(a.c, RevokeForm);
  await a.port.approvals.revoke(form.session, form.tool, a.actor);
  return a.c.redirect(`${SECTION}?revoked=${encodeURIComponent(`${form.tool} in ${form.session}`)}`, 303);
}
