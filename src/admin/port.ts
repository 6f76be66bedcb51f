// The AdminPort (src/core/admin.ts) over the running bot: src/main.ts builds it once the app is
// assembled and hands it to the channels that serve admin pages (the web console).
import type { App } from '../app.ts';
import type { Config } from '../config/config.ts';
import type { AdminPort } from '../core/admin.ts';
import type { McpServerStatus } from '../mcp/manager.ts';
import type { Store } from '../store/store.ts';
import { adminApprovals } from './approvals.ts';
import { adminConversations } from './conversations.ts';
import { readHealth } from './health.ts';
import { adminKnowledge } from './knowledge.ts';
import { adminUsage } from './usage.ts';

export interface AdminPortOptions {
  config: Config;
  store: Store;
  app: Pick<App, 'knowledge' | 'approvals' | 'gateway' | 'modelHealth'>;
  /** The MCP servers' state (none when parley.config.yaml lists none). */
  mcp?: () => McpServerStatus[];
}

export function createAdminPort({ config, store, app, mcp = () => [] }: AdminPortOptions): AdminPort {
  return {
    knowledge: adminKnowledge({ kb: app.knowledge, store, settings: config.knowledge }),
    approvals: adminApprovals({ store, approvals: app.approvals }),
    conversations: adminConversations({ store, gateway: app.gateway }),
    usage: adminUsage({ store, config }),
    health: () => readHealth({ store, modelHealth: app.modelHealth, modelConfigured: config.model.configured, mcp }),
  };
}
