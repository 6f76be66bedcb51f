// What the running bot knows of its model: checked cheaply at start (model-check.ts), learnt from
// every request of a turn (a failure says why; a success says it answers again), and checked again
// after a failure, at most once per interval. The ready block and /readyz read it.
import type { ModelConfig } from '../config/config.ts';
import type { CoreLogger } from '../core/types.ts';
import { checkModel } from './model-check.ts';
import { describeModelState, type ModelState, modelStateOfError, modelWhere } from './model-state.ts';
import type { LlmClient } from './types.ts';

export interface ModelHealthOptions {
  config: ModelConfig;
  log: CoreLogger;
  /** How long one check may take (default 5 s). */
  timeoutMs?: number;
  /** A failure triggers a check at most this often (default 30 s). */
  recheckMs?: number;
  /** The check itself (tests). */
  check?: (config: ModelConfig, timeoutMs: number) => Promise<ModelState>;
  now?: () => number;
}

export class ModelHealth {
  readonly #o: ModelHealthOptions;
  #state: ModelState;
  #checking: Promise<ModelState> | undefined;
  #lastCheckAt = Number.NEGATIVE_INFINITY;

  constructor(options: ModelHealthOptions) {
    this.#o = options;
    this.#state = options.config.configured && options.config.model ? { kind: 'unchecked' } : { kind: 'not_configured' };
  }

  get state(): ModelState {
    return this.#state;
  }

  /** The configured model as people name it: "gpt-x at https://...". */
  get where(): string {
    return modelWhere(this.#o.config);
  }

  /** One check at a time; resolves with the state it found. */
  check(): Promise<ModelState> {
    if (this.#state.kind === 'not_configured') return Promise.resolve(this.#state);
    this.#checking ??= (async () => {
      this.#lastCheckAt = this.#now();
      try {
        const check = this.#o.check ?? checkModel;
        const found = await check(this.#o.config, this.#o.timeoutMs ?? 5_000);
        // "Reachable" (no model list) says less than an answer or a failure's cause: it only replaces not knowing, or "unreachable".
        const known = this.#state.kind !== 'unchecked' && this.#state.kind !== 'unreachable';
        if (found.kind !== 'reachable' || !known) this.#set(found);
      } catch (error) {
        this.#set(modelStateOfError(error) ?? this.#state);
      } finally {
        this.#checking = undefined;
      }
      return this.#state;
    })();
    return this.#checking;
  }

  /** The same client, telling this health of each request's outcome. */
  observe(llm: LlmClient): LlmClient {
    return {
      model: llm.model,
      complete: async (request, options) => {
        try {
          const completion = await llm.complete(request, options);
          if (this.#state.kind !== 'answering') this.#set({ kind: 'answering' });
          return completion;
        } catch (error) {
          this.failed(error);
          throw error;
        }
      },
    };
  }

  /** A request failed: its error says why; a check follows (at most once per interval). */
  failed(error: unknown): void {
    const state = modelStateOfError(error);
    if (!state) return;
    this.#set(state);
    if (this.#now() - this.#lastCheckAt >= (this.#o.recheckMs ?? 30_000)) void this.check();
  }

  #set(state: ModelState): void {
    const before = describeModelState(this.#state);
    this.#state = state;
    const after = describeModelState(state);
    if (before === after) return;
    if (state.kind === 'unchecked') return;
    const fine = state.kind === 'answering' || state.kind === 'reachable';
    this.#o.log[fine ? 'info' : 'warn']({ model: this.where, state: state.kind }, `model ${this.where}: ${after}`);
  }

  #now(): number {
    return this.#o.now?.() ?? Date.now();
  }
}
