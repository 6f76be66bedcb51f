// `defineConfig({...})`: the default export of a project's parley.config.ts. One zod schema says
// what the file may hold; the loader (load.ts) checks the file's export against it, and its type
// is the argument's type. Add a section by adding a key here.
import { z } from 'zod';
import { ModelsInputSchema } from '../config/models.ts';
import { commandNamed } from '../core/commands.ts';
import type { Plugin } from './plugin.ts';
import type { Tool } from './tool.ts';

const isTool = (value: unknown): value is Tool => (value as Tool | undefined)?.kind === 'parley.tool';
const isPlugin = (value: unknown): value is Plugin => (value as Plugin | undefined)?.kind === 'parley.plugin';

function unique<T>(items: T[], key: (item: T) => string, what: string, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    const name = key(item);
    if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [index], message: `two ${what} are named "${name}"` });
    seen.add(name);
  }
}

export const ParleyConfigSchema = z
  .object({
    /** Tools the model may call, besides the built-in ones (each made by defineTool). */
    tools: z
      .array(z.custom<Tool>(isTool, { message: 'not a tool: make each entry with defineTool({...})' }))
      .default([])
      .superRefine((tools, ctx) => unique(tools, (tool) => tool.name, 'tools', ctx)),
    /** Plugins: hooks, context sections and commands (each made by definePlugin). */
    plugins: z
      .array(z.custom<Plugin>(isPlugin, { message: 'not a plugin: make each entry with definePlugin({...})' }))
      .default([])
      .superRefine((plugins, ctx) => {
        unique(plugins, (plugin) => plugin.name, 'plugins', ctx);
        const commands = plugins.flatMap((plugin) => plugin.commands ?? []);
        unique(commands, (command) => command.name, 'commands', ctx);
        for (const command of commands) {
          if (commandNamed(command.name)) ctx.addIssue({ code: 'custom', message: `/${command.name} is one of Parley's own commands` });
        }
      }),
    /** Named model endpoints, the default, per-channel models and the fallback chain (docs/models.md). */
    models: ModelsInputSchema.optional(),
    /** The system prompt's base: a Liquid template, inline or in a file beside this one (docs/models.md). */
    prompt: z
      .union([z.strictObject({ template: z.string().min(1) }), z.strictObject({ file: z.string().min(1) })], {
        error: 'expects { template: "..." } or { file: "prompt.liquid" } (one of them)',
      })
      .optional(),
  })
  .strict();

/** What `defineConfig` takes: every key is optional. */
export type ConfigOptions = z.input<typeof ParleyConfigSchema>;
/** The checked configuration Parley runs with. */
export type ParleyConfig = z.output<typeof ParleyConfigSchema>;

/** The configuration of a project: the default export of parley.config.ts. Checked when Parley starts. */
export function defineConfig(options: ConfigOptions): ConfigOptions {
  return options;
}

/** The configuration of a project without a parley.config file: every default. */
export const EMPTY_CONFIG: ParleyConfig = ParleyConfigSchema.parse({});
