// Which configured model answers a request, and what happens when it fails. The chat's own choice
// (/model), else its channel's model, else the default; then the fallback chain. A model that
// fails in a way another might not (busy past its retry budget, 5xx, a timeout or a lost
// connection, all after its own retries) hands the request to the next one, but only while
// nothing of the answer has been streamed to the chat: an answer already showing is not restarted
// by another model. Each model has its own client (and retries) and its own health.
import type { ModelsSetup, NamedModel } from '../config/models.ts';
import type { CoreLogger } from '../core/types.ts';
import { modelStateOfError, describeModelState, modelWhere } from './model-state.ts';
import { retryVerdict } from './retry.ts';
import type { CompleteOptions, Completion, CompletionRequest, LlmClient } from './types.ts';

export interface ModelRouterOptions {
  setup: ModelsSetup;
  /** One client per configured model, by name (already telling that model's health). */
  clients: ReadonlyMap<string, LlmClient>;
  /** The chat's /model choice, if any (read for each request, so a choice holds on every process). */
  chatChoice?: (channel: string, chatId: string) => Promise<string | undefined>;
  log: CoreLogger;
}

export class ModelRouter implements LlmClient {
  readonly #o: ModelRouterOptions;
  readonly #byName: Map<string, NamedModel>;
  /** Which model a failure came from (for the admin's one-line cause). */
  readonly #failedOn = new WeakMap<object, NamedModel>();
  /** Per turn (oldest first): the chat's /model choice as read in its first request. */
  readonly #turnChoices = new Map<string, Promise<string | undefined>>();
  /**
   * Per turn (oldest first): the model that answered after the one chosen failed. The turn's later
   * rounds ask it first: a model that just failed is not waited for again in every tool round.
   */
  readonly #turnFallbacks = new Map<string, string>();

  constructor(options: ModelRouterOptions) {
    this.#o = options;
    this.#byName = new Map(options.setup.models.map((m) => [m.name, m]));
  }

  /** The default model's name on its server (LlmClient's `model`). */
  get model(): string {
    return this.#named(this.#o.setup.defaultModel)?.config.model ?? '';
  }

  get names(): string[] {
    return this.#o.setup.models.map((m) => m.name);
  }

  get fallback(): readonly string[] {
    return this.#o.setup.fallback;
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  named(name: string): NamedModel | undefined {
    return this.#byName.get(name);
  }

  /** The model a chat uses when nothing fails, and why: its own choice, its channel's, or the default. */
  async chosen(
    channel: string,
    chatId: string,
    turnId?: string,
  ): Promise<{ name: string; by: 'chat' | 'channel' | 'default' } | undefined> {
    const own = await this.#choiceOf(channel, chatId, turnId);
    // A choice naming a model removed from the configuration since is passed over.
    if (own && this.#byName.has(own)) return { name: own, by: 'chat' };
    const forChannel = this.#o.setup.channels[channel];
    if (forChannel && this.#byName.has(forChannel)) return { name: forChannel, by: 'channel' };
    const fallbackDefault = this.#o.setup.defaultModel;
    return fallbackDefault && this.#byName.has(fallbackDefault) ? { name: fallbackDefault, by: 'default' } : undefined;
  }

  /** The models a request of this chat tries, in order. */
  async chain(chat: CompleteOptions['chat']): Promise<NamedModel[]> {
    const chosen = chat ? (await this.chosen(chat.channel, chat.chatId, chat.turnId))?.name : this.#o.setup.defaultModel;
    // After a fallback in this turn: the model that answered first, the chosen one last.
    const stuck = chat?.turnId === undefined ? undefined : this.#turnFallbacks.get(chat.turnId);
    const order = stuck ? [stuck, ...this.#o.setup.fallback, chosen] : [chosen, ...this.#o.setup.fallback];
    const names = [...new Set(order.filter((n): n is string => n !== undefined))];
    return names.map((n) => this.#byName.get(n)).filter((m): m is NamedModel => m !== undefined);
  }

  async complete(request: CompletionRequest, options: CompleteOptions = {}): Promise<Completion> {
    const chain = await this.chain(options.chat);
    if (chain.length === 0) throw new Error('No model is configured');
    for (const [i, named] of chain.entries()) {
      const client = this.#o.clients.get(named.name);
      if (!client) continue;
      let streamed = false;
      try {
        const completion = await client.complete(named.capabilities.tools ? request : withoutTools(request), {
          ...options,
          onDelta: (delta) => {
            streamed = true;
            options.onDelta?.(delta);
          },
        });
        if (i > 0 && options.chat?.turnId !== undefined) this.#rememberFallback(options.chat.turnId, named.name);
        const usage = completion.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
        return { ...completion, usage: { ...usage, model: named.name } };
      } catch (error) {
        if (error !== null && typeof error === 'object') this.#failedOn.set(error, named);
        const next = chain[i + 1];
        if (!next || streamed || !fallsBack(error) || options.signal?.aborted) throw error;
        const state = modelStateOfError(error);
        const reason = state ? describeModelState(state) : String(error);
        this.#o.log.warn(
          { model: named.name, fallback: next.name, reason },
          `model ${named.name} (${modelWhere(named.config)}) failed: ${reason}; asking ${next.name} instead`,
        );
        options.onFallback?.({ from: named.name, to: next.name, reason });
      }
    }
    throw new Error('No configured model has a client');
  }

  /** "model main (gpt-x at https://...): not reachable: ..." for a failure of a request through this router. */
  failureCause(error: unknown): string | undefined {
    const named = error !== null && typeof error === 'object' ? this.#failedOn.get(error) : undefined;
    const state = modelStateOfError(error);
    if (!named || !state) return undefined;
    return `model ${named.name} (${modelWhere(named.config)}): ${describeModelState(state)}`;
  }

  /**
   * The chat's /model choice. With one model there is nothing to choose, and nothing is read (the
   * hot path's statement count stays as it was); a turn reads it once, in its first request.
   */
  #choiceOf(channel: string, chatId: string, turnId: string | undefined): Promise<string | undefined> {
    if (!this.#o.chatChoice || this.#o.setup.models.length < 2) return Promise.resolve(undefined);
    if (turnId === undefined) return this.#o.chatChoice(channel, chatId);
    let choice = this.#turnChoices.get(turnId);
    if (!choice) {
      choice = this.#o.chatChoice(channel, chatId);
      // A failed read is not kept: the next request of the turn reads again.
      choice.catch(() => this.#turnChoices.delete(turnId));
      this.#turnChoices.set(turnId, choice);
      if (this.#turnChoices.size > MAX_TURN_CHOICES) this.#turnChoices.delete(this.#turnChoices.keys().next().value!);
    }
    return choice;
  }

  #rememberFallback(turnId: string, name: string): void {
    this.#turnFallbacks.delete(turnId);
    this.#turnFallbacks.set(turnId, name);
    if (this.#turnFallbacks.size > MAX_TURN_CHOICES) this.#turnFallbacks.delete(this.#turnFallbacks.keys().next().value!);
  }

  #named(name: string | undefined): NamedModel | undefined {
    return name === undefined ? undefined : this.#byName.get(name);
  }
}

const MAX_TURN_CHOICES = 1_000;

/** Failures another model may not have: what the client retries (busy, 5xx, timeouts, connection errors), once its retries are spent. */
function fallsBack(error: unknown): boolean {
  return retryVerdict(error).retry;
}

function withoutTools(request: CompletionRequest): CompletionRequest {
  const { tools: _tools, toolChoice: _choice, ...rest } = request;
  return rest;
}
