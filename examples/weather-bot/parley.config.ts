// The weather desk: Parley with two tools of its own, a plugin, a chat command, two models (the
// second answers when the first fails) and a system prompt template.
// `npx parley start` in this folder loads this file as it is (Node strips the types).
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR:-default} is Parley's own syntax for a value from .env, written literally
import { defineConfig, definePlugin, defineTool, z } from 'parley';
import { describeForecast, forecastFor } from './forecasts.ts';

/** A read-only tool: no approval, and safe to run again after a crash (idempotent). */
const getWeather = defineTool({
  name: 'get_weather',
  description: 'The current weather in a city (temperature in °C and the sky).',
  parameters: z.object({ city: z.string().min(1).describe('City name, e.g. "Lisbon"') }),
  approval: 'never',
  idempotent: true,
  activity: 'checking the weather',
  async execute({ city }) {
    const forecast = forecastFor(city);
    return forecast ? describeForecast(forecast) : { content: `No forecast for ${city}.`, isError: true };
  },
});

/** A tool with an effect: someone in the chat approves each call with a button first. */
const setFrostAlert = defineTool({
  name: 'set_frost_alert',
  description: 'Remember to warn this chat when a city drops below a temperature.',
  parameters: z.object({
    city: z.string().min(1),
    belowCelsius: z.number().int().min(-50).max(50),
  }),
  approval: 'always',
  describe: ({ city, belowCelsius }) => `Set a frost alert for ${city} below ${belowCelsius} °C`,
  async execute({ city, belowCelsius }, ctx) {
    await ctx.memory.set(`frost_alert_${city.toLowerCase()}`, `below ${belowCelsius} °C`);
    ctx.logger.info({ city, belowCelsius, by: ctx.requester.id }, 'frost alert set');
    return `Frost alert set for ${city} below ${belowCelsius} °C.`;
  },
});

/** Hooks, a context section and a command. */
const weatherDesk = definePlugin({
  name: 'weather-desk',
  // Added to the model's context each turn, beside the turn's message (the system prompt stays cacheable).
  contextSections: [() => 'Weather desk: temperatures are in °C; say which city a number is for.'],
  // Every tool result the model reads says where it came from.
  afterTool(call) {
    if (call.tool === 'get_weather' && !call.result.isError) return { content: `${call.result.content} (source: weather desk)` };
    return undefined;
  },
  // Logs each tool call; a call to fetch a web page is not allowed on this bot.
  beforeTool(call, { logger }) {
    logger.info({ tool: call.tool, chat: call.chat.chatId }, 'tool call');
    if (call.tool === 'http_request') return { block: 'this bot does not fetch web pages' };
    return undefined;
  },
  commands: [
    {
      name: 'weather',
      description: 'The weather in a city, without asking the model',
      argument: { name: 'city', description: 'City name', required: true },
      run(city) {
        if (!city) return 'Which city? For example: /weather Lisbon';
        const forecast = forecastFor(city);
        return forecast ? describeForecast(forecast) : `I have no forecast for ${city}.`;
      },
    },
  ],
});

export default defineConfig({
  tools: [getWeather, setFrostAlert],
  plugins: [weatherDesk],
  // Where each model is comes from .env (`${VAR:-default}`); the keys are read from the variables named here.
  models: {
    default: 'main',
    // When main is busy past its retry budget, fails (5xx) or sends nothing in time, before any text.
    fallback: ['backup'],
    endpoints: {
      main: {
        baseUrl: '${MAIN_MODEL_URL:-https://api.deepseek.com/v1}',
        apiKeyEnv: 'MAIN_MODEL_KEY',
        model: '${MAIN_MODEL:-deepseek-chat}',
        timeout: '60s',
        retryBudget: '30s',
      },
      backup: {
        baseUrl: '${BACKUP_MODEL_URL:-http://127.0.0.1:11434/v1}',
        model: '${BACKUP_MODEL:-qwen3:8b}',
        capabilities: { tools: true, reasoning: true },
      },
    },
  },
  // The system prompt's base (Liquid): the same for every turn of a chat, so it stays cached.
  prompt: {
    template: [
      'You are {{ botName }}, a weather assistant.',
      '{% if chatType == "group" %}You are in the group "{{ chatTitle }}": keep answers short.{% else %}You are in a direct chat.{% endif %}',
      'Give temperatures in °C.',
    ].join('\n'),
  },
});
