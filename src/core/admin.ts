// What the web console's admin pages reach of the running bot: knowledge, approvals, conversations,
// usage and health, in neutral shapes. src/admin implements it over the store and the services
// (the same functions the CLI and the chat buttons use); src/main.ts hands it to the channels that
// take one (ChannelAdapter.useAdmin). Adapters see only this file.

/** Who does an admin action (a web console admin browser): audited under this identity. */
export interface AdminActor {
  /** `channel:id`, e.g. `web:op-…`. */
  channel: string;
  id: string;
  displayName: string;
}

/** A failure the admin should read (bad input, a conflict, an unknown name): the pages show it as is. */
export class AdminInputError extends Error {
  readonly status: 400 | 404 | 409;
  constructor(message: string, status: 400 | 404 | 409 = 400) {
    super(message);
    this.name = 'AdminInputError';
    this.status = status;
  }
}

// ---- knowledge ----------------------------------------------------------------------------

interface AdminPageListing {
  slug: string;
  title: string;
  summary: string;
  tags: string[];
  revision: number;
  updatedAt: Date;
}

interface AdminPage extends AdminPageListing {
  content: string;
  references: string[];
  source: string;
  /** The page as a Markdown file with front matter (what the editor shows and saves). */
  file: string;
}

interface AdminSearchHit {
  slug: string;
  title: string;
  section: string;
  snippet: string;
  score: number;
  match: number;
  /** The automatic context would put this page into the prompt of a message like the query. */
  prompt: boolean;
}

interface AdminSearch {
  hits: AdminSearchHit[];
  terms: string[];
  /** What "prompt" means with this configuration. */
  legend: string;
}

interface AdminRevision {
  revision: number;
  title: string;
  source: string;
  author?: string;
  note?: string;
  createdAt: Date;
  /** The revision as a Markdown file with front matter (diffs compare these). */
  file: string;
}

export interface AdminSaveOutcome {
  status: 'created' | 'updated' | 'unchanged';
  slug: string;
  revision: number;
}

export interface AdminImportFile {
  /** Relative path with / separators (folder upload or zip entry). */
  path: string;
  bytes: Uint8Array;
}

export interface AdminImportReport {
  dryRun: boolean;
  counts: Record<'created' | 'updated' | 'unchanged' | 'failed', number>;
  outcomes: { file: string; status: string; slug?: string; revision?: number; reason?: string }[];
}

export interface AdminKnowledge {
  list(options: { limit: number; offset: number; prefix?: string }): Promise<{ pages: AdminPageListing[]; total: number }>;
  search(query: string, limit: number): Promise<AdminSearch>;
  get(slug: string): Promise<AdminPage | undefined>;
  /** Saves the edited page file (front matter + body), validated like `parley knowledge edit`. */
  save(slug: string, file: string, expectedRevision: number, actor: AdminActor): Promise<AdminSaveOutcome>;
  history(slug: string): Promise<AdminRevision[] | undefined>;
  revert(slug: string, revision: number, expectedRevision: number, actor: AdminActor): Promise<AdminSaveOutcome>;
  /** Imports Markdown files as `parley knowledge import` does (same report; nothing written on a dry run). */
  import(files: AdminImportFile[], dryRun: boolean, actor: AdminActor): Promise<AdminImportReport>;
  /** Every page as `<slug>.md` with front matter (what `parley knowledge export` writes). */
  exportFiles(): Promise<{ path: string; text: string }[]>;
}

// ---- approvals ----------------------------------------------------------------------------

export interface AdminApproval {
  code: string;
  toolName: string;
  arguments: string;
  status: string;
  requester: string;
  /** The session key: channel:chat[:thread][:user]. */
  where: string;
  decidedBy?: string;
  reason?: string;
  expiresAt: Date;
  createdAt: Date;
}

interface AdminAuditEntry {
  at: Date;
  who: string;
  action: string;
  outcome: string;
  toolName?: string;
  detail?: string;
}

interface AdminGrant {
  session: string;
  toolName: string;
  grantedBy: string;
  since: Date;
}

export interface AdminApprovals {
  pending(): Promise<AdminApproval[]>;
  recent(limit: number): Promise<AdminApproval[]>;
  /** The same exactly-once decision as a button press (then the prompt is updated and the turn resumes). */
  decide(code: string, choice: 'approve' | 'deny', actor: AdminActor, reason?: string): Promise<{ ok: boolean; message: string }>;
  audit(limit: number): Promise<AdminAuditEntry[]>;
  grants(): Promise<AdminGrant[]>;
  revoke(session: string, toolName: string, actor: AdminActor): Promise<number>;
}

// ---- conversations ------------------------------------------------------------------------

export interface AdminSession {
  key: string;
  channel: string;
  chatId: string;
  chatType: string;
  messages: number;
  facts: number;
  /** Conversation number (resets so far + 1). */
  conversation: number;
  lastActivity: Date;
}

export interface AdminTranscriptItem {
  role: 'user' | 'assistant' | 'tool' | 'summary';
  author?: string;
  text: string;
  toolCalls?: { name: string; arguments: string }[];
  toolName?: string;
  isError?: boolean;
  at: Date;
}

export interface AdminConversation {
  session: AdminSession;
  transcript: AdminTranscriptItem[];
  facts: { key: string; value: string; updatedAt: Date }[];
}

export interface AdminConversations {
  list(options: { channel?: string; limit: number }): Promise<AdminSession[]>;
  get(key: string): Promise<AdminConversation | undefined>;
  /** What /reset does: stops a running turn and starts a fresh conversation (facts stay). */
  reset(key: string, actor: AdminActor): Promise<void>;
}

// ---- usage --------------------------------------------------------------------------------

export type AdminUsageGrouping = 'day' | 'chat' | 'person' | 'model';

export interface AdminUsageRow {
  key: string;
  name?: string;
  turns: number;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  totalTokens: number;
  cost?: number;
}

export interface AdminUsage {
  /** The rows `parley usage --by <by> --since <since>` prints; a note when a grouping is approximate. */
  grouped(by: AdminUsageGrouping, since: Date): Promise<{ rows: AdminUsageRow[]; note?: string }>;
}

// ---- health -------------------------------------------------------------------------------

export interface AdminHealth {
  at: Date;
  processes: { owner: string; host: string; pid: number; heartbeatAgeMs: number; channels: string[] }[];
  receivers: { receiver: string; owner: string | null; alive: boolean; token: number; leaseUntil: string | null }[];
  sessionsRunning: { key: string; owner: string; leaseUntil: string }[];
  approvalsPending: number;
  queued: { channel: string; messages: number }[];
  model: { where: string; state: string; ok: boolean; fix?: string };
  database: string;
  mcp: { name: string; transport: string; state: string; tools: number; error?: string }[];
}

export interface AdminPort {
  knowledge: AdminKnowledge;
  approvals: AdminApprovals;
  conversations: AdminConversations;
  usage: AdminUsage;
  health(): Promise<AdminHealth>;
}
