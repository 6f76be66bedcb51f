// Whether the configured model answers, in words an operator can act on: "answering", "not
// reachable: ECONNREFUSED", "refused the API key (401)", "unknown model". Read from a failed
// request (modelStateOfError) or asked cheaply (model-check.ts).
import * as OpenAI from 'openai/core/error';
import { failureReason } from '../core/doctor.ts';
import { LlmError } from './errors.ts';

export type ModelState =
  | { kind: 'not_configured' }
  | { kind: 'unchecked' }
  | { kind: 'answering' }
  /** The server answers, but has no model list: the key and the name are not known to be right until an answer. */
  | { kind: 'reachable' }
  | { kind: 'unreachable'; reason: string }
  | { kind: 'unauthorised'; status: number }
  | { kind: 'unknown_model'; status?: number }
  | { kind: 'failing'; reason: string };

const UNKNOWN_MODEL =
  /model.{0,40}(not[ _]?found|does not exist|not exist|unknown|invalid|not supported)|(unknown|invalid|no such) model|model_not_found/i;

function causeOf(error: LlmError): unknown {
  return error.cause instanceof OpenAI.APIConnectionError ? (error.cause.cause ?? error.cause) : error.cause;
}

/** What a failed model request says about the model; undefined when it says nothing (a stop). */
export function modelStateOfError(error: unknown): ModelState | undefined {
  if (!(error instanceof LlmError)) return { kind: 'failing', reason: failureReason(error) };
  switch (error.kind) {
    case 'aborted':
    case 'context_length':
      return undefined;
    case 'authentication':
      return { kind: 'unauthorised', status: error.status ?? 401 };
    case 'timeout':
      return { kind: 'unreachable', reason: 'no answer in time' };
    case 'rate_limit':
      return { kind: 'failing', reason: 'rate-limited (429)' };
    case 'bad_response':
      return { kind: 'failing', reason: error.message };
    default:
      break;
  }
  if (error.cause instanceof OpenAI.APIConnectionError) return { kind: 'unreachable', reason: failureReason(causeOf(error)) };
  const body = `${error.message} ${error.cause instanceof OpenAI.APIError ? JSON.stringify(error.cause.error ?? '') : ''}`;
  if (error.status === 404 || ((error.status === 400 || error.status === 422) && UNKNOWN_MODEL.test(body))) {
    return { kind: 'unknown_model', ...(error.status ? { status: error.status } : {}) };
  }
  return { kind: 'failing', reason: error.status ? `answered ${error.status}` : error.message };
}

/** "gpt-x at https://host/v1", without credentials a URL may carry. */
export function modelWhere(config: { model?: string; baseUrl?: string }): string {
  let url = config.baseUrl ?? 'https://api.openai.com/v1';
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    url = parsed.toString().replace(/\/$/, '');
  } catch {
    // Not a URL: shown as configured.
  }
  return `${config.model ?? '(no model)'} at ${url}`;
}

/** The one-line cause an admin sees when a turn failed on the model (undefined for other failures). */
export function modelFailureCause(error: unknown, config: { model?: string; baseUrl?: string }): string | undefined {
  if (!(error instanceof LlmError)) return undefined;
  const state = modelStateOfError(error);
  return state ? `model ${modelWhere(config)}: ${describeModelState(state)}` : undefined;
}

/** One line: "answering", "not reachable: ECONNREFUSED", "refused the API key (401)", "unknown model". */
export function describeModelState(state: ModelState): string {
  switch (state.kind) {
    case 'not_configured':
      return 'not configured';
    case 'unchecked':
      return 'not checked yet';
    case 'answering':
      return 'answering';
    case 'reachable':
      return 'reachable (the server has no model list; the first answer will tell more)';
    case 'unreachable':
      return `not reachable: ${state.reason}`;
    case 'unauthorised':
      return `refused the API key (${state.status})`;
    case 'unknown_model':
      return `unknown model${state.status ? ` (${state.status})` : ''}`;
    case 'failing':
      return `failing: ${state.reason}`;
  }
}

/** What to do about it, for the ready block and `parley doctor`. */
export function modelStateFix(state: ModelState): string | undefined {
  switch (state.kind) {
    case 'not_configured':
      return 'Set OPENAI_MODEL and OPENAI_BASE_URL (or OPENAI_API_KEY) in .env (see .env.example), then restart.';
    case 'unreachable':
      return 'Check OPENAI_BASE_URL (scheme, host, port, the /v1 part) and that the model server runs.';
    case 'unauthorised':
      return 'Check OPENAI_API_KEY: the server does not accept it.';
    case 'unknown_model':
      return 'Check OPENAI_MODEL: the server does not serve a model by that name (parley doctor lists the ones it has).';
    default:
      return undefined;
  }
}
