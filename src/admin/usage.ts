// The admin pages' usage: the rows `parley usage` prints (the same query and cost), per day, chat
// and person; per model from what the turns record today.
import { costOf } from '../cli/usage.ts';
import type { Config } from '../config/config.ts';
import type { AdminUsage, AdminUsageRow } from '../core/admin.ts';
import type { UsageRow } from '../store/repos/usage.ts';
import type { Store } from '../store/store.ts';

export function adminUsage({ store, config }: { store: Store; config: Pick<Config, 'prices' | 'model'> }): AdminUsage {
  const withCost = (row: UsageRow): AdminUsageRow => ({ ...row, ...(config.prices ? { cost: costOf(row, config.prices) } : {}) });
  return {
    async grouped(by, since) {
      if (by !== 'model') return { rows: (await store.usage.grouped(by, since)).map(withCost) };
      // Turns do not record which model answered: everything is counted under the configured one.
      const days = await store.usage.grouped('day', since);
      if (days.length === 0) return { rows: [] };
      const sum = (field: keyof Omit<UsageRow, 'key' | 'name'>) => days.reduce((total, row) => total + row[field], 0);
      const total: UsageRow = {
        key: config.model.model ?? '(no model configured)',
        turns: sum('turns'),
        promptTokens: sum('promptTokens'),
        cachedTokens: sum('cachedTokens'),
        completionTokens: sum('completionTokens'),
        totalTokens: sum('totalTokens'),
      };
      return {
        rows: [withCost(total)],
        note: 'Turns do not record which model answered them yet: all turns are counted under the model configured now.',
      };
    },
  };
}
