// /model: an admin sees the configured models and the one this chat uses (its own choice, its
// channel's, or the default, and the fallback chain), switches the chat to another (kept in the
// database, so it holds on every process and after restarts), or goes back with /model reset.
// Anyone else is refused and nothing changes.
import { RESET_WORD } from '../config/models.ts';
import { localeOrDefault, type Locale, t } from '../core/i18n/index.ts';
import { markdownText } from '../core/markdown-text.ts';
import type { Inbound } from '../core/types.ts';
import type { Store } from '../store/store.ts';
import type { ModelChoices } from './ports.ts';

export interface ModelCommandOptions {
  models: ModelChoices;
  chatModels: Store['chatModels'];
  /** "channel:userId" entries. */
  admins: readonly string[];
  locale?: Locale;
}

export class ModelCommand {
  readonly #o: ModelCommandOptions;
  readonly #admins: Set<string>;

  constructor(options: ModelCommandOptions) {
    this.#o = options;
    this.#admins = new Set(options.admins);
  }

  async run(args: string, inbound: Inbound): Promise<string> {
    const locale = this.#o.locale ?? localeOrDefault(inbound.locale);
    if (!this.#admins.has(`${inbound.channel}:${inbound.sender.id}`)) return t(locale, 'models.only_admins');
    const { models } = this.#o;
    if (models.names.length === 0) return t(locale, 'models.none');
    const wanted = args.trim().split(/\s+/)[0] ?? '';
    if (wanted === '') return this.#overview(inbound, locale);
    const who = `${inbound.channel}:${inbound.sender.id}`;
    if (wanted.toLowerCase() === RESET_WORD) {
      const had = await this.#o.chatModels.clear(inbound.channel, inbound.chatId);
      const now = await models.chosen(inbound.channel, inbound.chatId);
      return t(locale, had ? 'models.reset' : 'models.reset_nothing', { name: markdownText(now?.name ?? '') });
    }
    const named = models.named(wanted);
    if (!named) return t(locale, 'models.unknown', { name: markdownText(wanted), names: models.names.map(markdownText).join(', ') });
    await this.#o.chatModels.set(inbound.channel, inbound.chatId, named.name, who);
    return t(locale, 'models.switched', { name: markdownText(named.name) });
  }

  async #overview(inbound: Inbound, locale: Locale): Promise<string> {
    const { models } = this.#o;
    const chosen = await models.chosen(inbound.channel, inbound.chatId);
    const lines: string[] = [];
    if (chosen) {
      const key =
        chosen.by === 'chat' ? 'models.current_chat' : chosen.by === 'channel' ? 'models.current_channel' : 'models.current_default';
      lines.push(t(locale, key, { name: markdownText(chosen.name) }));
      const after = models.fallback.filter((name) => name !== chosen.name);
      if (after.length) lines.push(t(locale, 'models.fallback', { names: after.map(markdownText).join(' → ') }));
    }
    lines.push('', t(locale, 'models.list_heading'));
    for (const name of models.names) {
      const named = models.named(name)!;
      const can = Object.entries(named.capabilities)
        .filter(([, yes]) => yes)
        .map(([what]) => what);
      const mark = name === chosen?.name ? ' ✓' : '';
      lines.push(`- ${markdownText(name)}${mark}: ${markdownText(named.config.model)}${can.length ? ` (${can.join(', ')})` : ''}`);
    }
    lines.push('', t(locale, 'models.usage'));
    return lines.join('\n');
  }
}
