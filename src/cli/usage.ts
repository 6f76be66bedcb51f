// `parley usage [--since 7d] [--by chat|person|day|model] [--json]`: the tokens the model servers
// reported for the turns started in that time (prompt, completion, cached, total), per chat,
// person, day or model (the configured name that answered), and their cost when prices are configured (PARLEY_PRICE_*, per million tokens).
import type { Command } from 'commander';
import { z } from 'zod';
import type { TokenPrices } from '../config/config.ts';
import { duration } from '../core/env.ts';
import type { UsageGrouping, UsageRow } from '../store/repos/usage.ts';
import { CliError, type CliContext } from './context.ts';

const OptionsSchema = z.object({
  since: z.string().default('7d'),
  by: z.enum(['chat', 'person', 'day', 'model']).default('day'),
  json: z.boolean().optional(),
});

/** The cost of `row` at `prices` (per million tokens): cached input at its own price. */
export function costOf(row: UsageRow, prices: TokenPrices): number {
  const uncached = Math.max(0, row.promptTokens - row.cachedTokens);
  return (uncached * prices.input + row.cachedTokens * prices.cachedInput + row.completionTokens * prices.output) / 1_000_000;
}

const grouped = (n: number) => n.toLocaleString('en-US');

export function registerUsageCommand(program: Command, ctx: CliContext): void {
  program
    .command('usage')
    .description('Tokens the model reported (prompt, completion, cached) per chat, person, day or model, with cost when prices are set')
    .option('--since <duration>', 'turns started this long ago or later (e.g. 24h, 7d, 30d)', '7d')
    .option('--by <grouping>', 'chat | person | day | model', 'day')
    .option('--json', 'machine-readable output')
    .action(async (raw: unknown) => {
      const parsed = OptionsSchema.safeParse(raw);
      if (!parsed.success) throw new CliError(`usage: --by expects chat, person, day or model`);
      const options = parsed.data;
      const window = duration(0).safeParse(options.since);
      if (!window.success || window.data <= 0)
        throw new CliError(`usage: --since expects a duration such as 24h or 7d (got "${options.since}")`);
      const since = new Date(Date.now() - window.data);
      const by: UsageGrouping = options.by;
      const store = await ctx.store();
      const prices = ctx.config.prices;
      const rows = await store.usage.grouped(by, since);
      const withCost = rows.map((row) => ({ ...row, ...(prices ? { cost: costOf(row, prices) } : {}) }));
      if (options.json) return ctx.json({ since: since.toISOString(), by, rows: withCost });
      ctx.table(
        [by, 'turns', 'prompt', 'cached', 'completion', 'total', ...(prices ? ['cost'] : [])],
        withCost.map((row) => [
          row.name ? `${row.key} (${row.name})` : row.key,
          row.turns,
          grouped(row.promptTokens),
          grouped(row.cachedTokens),
          grouped(row.completionTokens),
          grouped(row.totalTokens),
          ...('cost' in row && row.cost !== undefined ? [row.cost.toFixed(4)] : []),
        ]),
        `No turns since ${since.toISOString()}.`,
      );
    });
}
