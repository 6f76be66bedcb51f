// The models and the system prompt a project configures, in parley.config.yaml or in its
// parley.config.ts (defineConfig), applied to the configuration from the environment. Each may be
// set in one place only; a mistake stops start-up with the file named.
import { readFileSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import { resolveParsedModels } from '../config/models.ts';
import { PromptTemplate } from '../config/prompt-template.ts';
import type { FileConfig } from '../config-file/schema.ts';
import { ConfigError } from '../core/env.ts';
import type { ParleyConfig } from './config.ts';

export function withProjectModelsAndPrompt(
  config: Config,
  fileConfig: FileConfig,
  project: { config: ParleyConfig; file?: string },
  env: Record<string, string | undefined>,
): Config {
  const name = project.file ? basename(project.file) : 'parley.config';
  const yamlName = fileConfig.path ? basename(fileConfig.path) : 'parley.config.yaml';
  let models = fileConfig.models ?? config.models;
  if (project.config.models) {
    if (fileConfig.models) throw new ConfigError(`Invalid configuration: models are set in both ${yamlName} and ${name}; keep one`);
    const { setup, issues } = resolveParsedModels(project.config.models, config.model, env);
    if (!setup) {
      throw new ConfigError(
        `${name}: the configuration is not valid:\n${issues.map((issue) => `  - ${issue.path.join('.')}: ${issue.message}`).join('\n')}`,
      );
    }
    models = setup;
  }
  const sources = [
    config.bot.prompt ? 'PARLEY_SYSTEM_PROMPT(_FILE)' : undefined,
    fileConfig.prompt ? yamlName : undefined,
    project.config.prompt ? name : undefined,
  ].filter((s) => s !== undefined);
  if (sources.length > 1) throw new ConfigError(`Invalid configuration: the system prompt is set in ${sources.join(' and ')}; keep one`);
  const prompt = config.bot.prompt ?? fileConfig.prompt ?? (project.file ? projectPrompt(project.config, project.file) : undefined);
  return { ...config, models, bot: { ...config.bot, ...(prompt ? { prompt } : {}) } };
}

function projectPrompt(config: ParleyConfig, file: string): PromptTemplate | undefined {
  const prompt = config.prompt;
  if (!prompt) return undefined;
  if ('template' in prompt) return PromptTemplate.compile(prompt.template, { shown: `${basename(file)} (prompt.template)` });
  const path = resolve(dirname(file), prompt.file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration: ${basename(file)}: prompt.file "${prompt.file}" cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
  return PromptTemplate.compile(text, { shown: relative(process.cwd(), path) || path });
}
