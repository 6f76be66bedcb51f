// `parley doctor`'s model checks: the server is reachable and takes the key, it serves the model
// (GET /models where the server has it), a streamed answer arrives, and a tool call goes round
// (the model calls a tool, gets its result, answers).
import type { ModelConfig } from '../config/config.ts';
import { ENV_MODEL_NAME, type ModelsSetup } from '../config/models.ts';
import type { DoctorCheck } from '../core/doctor.ts';
import { askForAnswer, listModels, listsModel, probeClient } from '../llm/model-check.ts';
import { describeModelState, type ModelState, modelStateFix, modelStateOfError } from '../llm/model-state.ts';
import type { ChatMessage, ToolSpec } from '../llm/types.ts';

/** Where the checks of one model are shown: `model` alone, or `model <name>` when several are configured. */
interface ModelCheckPlace {
  area: string;
  /** The setting that names the model, for the fix of an unknown name. */
  setting: string;
  /** The model of the OPENAI_* variables: the fixes name them. */
  fromEnv: boolean;
}

const ENV_PLACE: ModelCheckPlace = { area: 'model', setting: 'OPENAI_MODEL', fromEnv: true };
const PROBE_TOOL: ToolSpec = {
  name: 'get_secret_number',
  description: 'Returns the secret number. Call it whenever the user asks for the secret number.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
};
const SECRET = '4711';

function failed(place: ModelCheckPlace, check: string, state: ModelState): DoctorCheck {
  // The fixes name the OPENAI_* variables: they apply to the model those configure.
  const fix = place.fromEnv ? modelStateFix(state) : undefined;
  return { area: place.area, check, status: 'problem', detail: describeModelState(state), ...(fix ? { fix } : {}) };
}

async function toolRoundTrip(config: ModelConfig, timeoutMs: number, place: ModelCheckPlace): Promise<DoctorCheck> {
  const area = place.area;
  const check = 'tool call round-trip';
  const llm = probeClient(config, timeoutMs);
  const messages: ChatMessage[] = [{ role: 'user', content: 'What is the secret number? Use the tool to find out.' }];
  try {
    const first = await llm.complete({ messages, tools: [PROBE_TOOL] }, { signal: AbortSignal.timeout(timeoutMs) });
    const call = first.toolCalls[0];
    if (!call) {
      return {
        area,
        check,
        status: 'warning',
        detail: 'this model does not call tools (it answered in text)',
        fix: 'Knowledge search, memory and MCP tools need a model that calls tools: choose one that supports function calling.',
      };
    }
    messages.push({ role: 'assistant', content: first.text, toolCalls: [call] }, { role: 'tool', toolCallId: call.id, content: SECRET });
    const second = await llm.complete({ messages, tools: [PROBE_TOOL] }, { signal: AbortSignal.timeout(timeoutMs) });
    if (second.toolCalls.length > 0 && second.text.trim() === '') {
      return { area, check, status: 'warning', detail: 'the model called the tool again instead of answering with its result' };
    }
    return { area, check, status: 'ok', detail: `called ${call.name}, then answered with its result` };
  } catch (error) {
    return failed(place, check, modelStateOfError(error) ?? { kind: 'failing', reason: 'stopped' });
  }
}

/** The checks of each configured model (see src/config/models.ts); "not configured" when there is none. */
export async function namedModelChecks(models: ModelsSetup, timeoutMs: number): Promise<DoctorCheck[]> {
  if (models.models.length === 0) return [failed(ENV_PLACE, 'configuration', { kind: 'not_configured' })];
  if (models.models.length === 1 && models.models[0]!.name === ENV_MODEL_NAME) return modelChecks(models.models[0]!.config, timeoutMs);
  const all = await Promise.all(
    models.models.map((named) =>
      modelChecks(
        named.config,
        timeoutMs,
        named.name === ENV_MODEL_NAME
          ? { ...ENV_PLACE, area: `model ${named.name}` }
          : { area: `model ${named.name}`, setting: `model: of ${named.name}`, fromEnv: false },
      ),
    ),
  );
  return all.flat();
}

async function modelChecks(config: ModelConfig, timeoutMs: number, place: ModelCheckPlace = ENV_PLACE): Promise<DoctorCheck[]> {
  const area = place.area;
  if (!config.configured || !config.model) return [failed(place, 'configuration', { kind: 'not_configured' })];
  const where = `${config.model} at ${config.baseUrl ?? 'https://api.openai.com/v1'}`;
  const checks: DoctorCheck[] = [];
  const list = await listModels(config, timeoutMs);
  if (list.kind === 'failed') return [failed(place, `server (${where})`, list.state)];
  checks.push({ area, check: 'server', status: 'ok', detail: `${where}: reachable` });
  if (list.kind === 'listed') {
    const known = listsModel(list.ids, config.model);
    const others = list.ids.slice(0, 8).join(', ') + (list.ids.length > 8 ? ', …' : '');
    checks.push(
      known
        ? { area, check: 'model name', status: 'ok', detail: `${config.model} is served (GET /models), the key is accepted` }
        : {
            area,
            check: 'model name',
            status: 'problem',
            detail: `unknown model: ${config.model} is not among the server's models (${others || 'none listed'})`,
            fix: `Set ${place.setting} to one of the models the server lists.`,
          },
    );
    if (!known) return checks;
  } else {
    checks.push({
      area,
      check: 'model name',
      status: 'skipped',
      detail: `the server has no model list (GET /models answered ${list.status}); the answer below tells`,
    });
  }
  const answer = await askForAnswer(config, timeoutMs);
  if (answer.state.kind !== 'answering') {
    checks.push(failed(place, 'streamed answer', answer.state));
    return checks;
  }
  const said = (answer.text ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
  checks.push({ area, check: 'streamed answer', status: 'ok', detail: said ? `answered "${said}"` : 'answered (empty text)' });
  checks.push(await toolRoundTrip(config, timeoutMs, place));
  return checks;
}
