// The admin pages' usage: the rows `parley usage` prints (the same query and cost), per day, chat,
// person and model (the model each turn recorded; turns from before it was recorded are counted
// under one "unrecorded" row, as in `parley usage --by model`).
import { costOf } from '../cli/usage.ts';
import type { Config } from '../config/config.ts';
import type { AdminUsage, AdminUsageRow } from '../core/admin.ts';
import type { UsageRow } from '../store/repos/usage.ts';
import type { Store } from '../store/store.ts';

export function adminUsage({ store, config }: { store: Store; config: Pick<Config, 'prices'> }): AdminUsage {
  const withCost = (row: UsageRow): AdminUsageRow => ({ ...row, ...(config.prices ? { cost: costOf(row, config.prices) } : {}) });
  return {
    async grouped(by, since) {
      return { rows: (await store.usage.grouped(by, since)).map(withCost) };
    },
  };
}
