import type { GenerateResponse } from 'genkit';
import { KeenError } from '../../errors.js';
import type { Message, ToolMessage } from '../core/message.js';
import { outputLimit, type TurnLimits } from '../core/provider.js';
import type { ChatRequest, ModelTurnEvent, ProviderAdapter, ProviderConversation, ToolDefinition } from '../core/provider.js';
import type { Usage } from '../core/usage.js';
import type { AdapterFactory } from './types.js';
import { genkitError, isRetryable, retryAfterMs } from './genkit-errors.js';
import type { GenkitHistory } from './genkit-messages.js';
import { assistantFromReply, cleanReply, pushParts, toGenkitHistory, toolResponseParts } from './genkit-messages.js';
import type { GenkitRuntime } from './genkit-runtime.js';
import { createGenkitRuntime, splitBaseUrl } from './genkit-runtime.js';

type TurnStop = Extract<ModelTurnEvent, { type: 'turn_end' }>['stopReason'];

const DEFAULT_RETRIES = 2;
const MAX_RETRY_DELAY_MS = 20_000;

interface TurnConfig {
  model: string;
  tools: ToolDefinition[];
  maxOutputTokens: number;
  thinkingBudget?: number;
  maxRetries: number;
}

/** Gemini counts cached tokens inside promptTokenCount and thoughts outside candidates. */
function usageOf(res: GenerateResponse): Usage | undefined {
  const u = res.usage;
  if (!u || (u.inputTokens === undefined && u.outputTokens === undefined)) return undefined;
  const cached = u.cachedContentTokens ?? 0;
  return {
    input: Math.max(0, (u.inputTokens ?? 0) - cached),
    output: (u.outputTokens ?? 0) + (u.thoughtsTokens ?? 0),
    cache_read: cached,
    cache_write: 0,
  };
}

function stopOf(finish: string | undefined, hasCalls: boolean): TurnStop {
  if (hasCalls) return 'tool_use';
  if (finish === 'stop') return 'end_turn';
  if (finish === 'length') return 'max_tokens';
  return 'other';
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

class GenkitConversation implements ProviderConversation {
  constructor(
    private readonly runtime: GenkitRuntime,
    private readonly config: TurnConfig,
    private history: GenkitHistory,
  ) {}

  private generate(signal: AbortSignal, maxOutputTokens: number) {
    const { ai, modules } = this.runtime;
    // Fresh tool actions per call: Genkit registers them per request and complains about reuse.
    const tools = this.config.tools.map((t) =>
      ai.dynamicTool({ name: t.name, description: t.description, inputJsonSchema: t.input_schema as never }),
    );
    const thinking = this.config.thinkingBudget && this.config.thinkingBudget > 0;
    return ai.generateStream({
      model: modules.google.googleAI.model(this.config.model),
      messages: structuredClone(this.history.messages),
      tools,
      returnToolRequests: true,
      abortSignal: signal,
      config: {
        maxOutputTokens,
        ...(thinking ? { thinkingConfig: { thinkingBudget: this.config.thinkingBudget, includeThoughts: true } } : {}),
      },
    });
  }

  async *streamTurn(signal: AbortSignal, limits?: TurnLimits): AsyncIterable<ModelTurnEvent> {
    // A local controller also stops the request when the consumer stops reading early.
    const local = new AbortController();
    const onAbort = () => local.abort();
    if (signal.aborted) local.abort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      yield* this.attempts(local.signal, outputLimit(this.config.maxOutputTokens, limits));
    } finally {
      signal.removeEventListener('abort', onAbort);
      local.abort();
    }
  }

  private async *attempts(signal: AbortSignal, maxOutputTokens: number): AsyncGenerator<ModelTurnEvent> {
    for (let attempt = 0; ; attempt++) {
      let received = false;
      try {
        const { stream, response } = this.generate(signal, maxOutputTokens);
        response.catch(() => {}); // read below; an early failure must not go unhandled
        for await (const chunk of stream) {
          for (const part of chunk.content) {
            if (typeof part.reasoning === 'string' && part.reasoning) {
              received = true;
              yield { type: 'reasoning_delta', text: part.reasoning };
            } else if (typeof part.text === 'string' && part.text) {
              received = true;
              yield { type: 'text_delta', text: part.text };
            } else if (part.toolRequest) {
              received = true;
            }
          }
        }
        const res = await response;
        const parts = cleanReply(res.message?.content ?? []);
        const message = assistantFromReply(parts, this.history.refs);
        for (const call of message.tool_calls ?? []) yield { type: 'tool_call', call };
        pushParts(this.history.messages, 'model', parts);
        const usage = usageOf(res);
        if (usage) yield { type: 'usage', usage };
        yield { type: 'turn_end', message, stopReason: stopOf(res.finishReason, (message.tool_calls ?? []).length > 0) };
        return;
      } catch (err) {
        // Retry only before anything reached the caller, so no delta is ever shown twice.
        if (!received && !signal.aborted && attempt < this.config.maxRetries && isRetryable(err)) {
          await sleep(Math.min(MAX_RETRY_DELAY_MS, retryAfterMs(err) ?? 500 * 2 ** attempt + Math.random() * 250), signal);
          if (!signal.aborted) continue;
        }
        yield { type: 'error', error: genkitError(err, { model: this.config.model, signal, attempts: attempt + 1 }) };
        return;
      }
    }
  }

  appendToolResults(results: ToolMessage[]): void {
    pushParts(this.history.messages, 'tool', toolResponseParts(results, this.history.refs));
  }

  appendUserText(text: string): void {
    if (text.trim()) pushParts(this.history.messages, 'user', [{ text }]);
  }

  hasPendingState(): boolean {
    return false;
  }

  /** Rebuilds the Genkit messages, system included, from the replacement. */
  replaceHistory(replacement: Message[]): void {
    this.history = toGenkitHistory(replacement);
  }

  fork(): ProviderConversation {
    return new GenkitConversation(this.runtime, this.config, structuredClone(this.history));
  }
}

/** The Gemini model id Genkit's plugin expects (`googleai/` and `models/` prefixes dropped). */
function geminiModel(model: string): string {
  return model.replace(/^(googleai\/|models\/)+/, '');
}

/**
 * `--provider genkit`: Gemini through Genkit's Google AI plugin. Keen runs the tools itself
 * (`returnToolRequests`). Key: `apiKey` from config, else GEMINI_API_KEY, else GOOGLE_API_KEY;
 * endpoint: `baseURL` from config, else GOOGLE_GEMINI_BASE_URL. Genkit is imported on the first
 * `open`, not here, and one Genkit instance serves every conversation of this adapter.
 */
export const createGenkitAdapter: AdapterFactory = async (settings) => {
  const apiKey = settings.apiKey ?? settings.env.GEMINI_API_KEY ?? settings.env.GOOGLE_API_KEY;
  if (!apiKey) {
    throw new KeenError('No Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), or use --provider to pick another provider.');
  }
  const endpoint = { apiKey, ...splitBaseUrl(settings.baseURL ?? settings.env.GOOGLE_GEMINI_BASE_URL) };
  let runtime: Promise<GenkitRuntime> | undefined;
  const adapter: ProviderAdapter = {
    id: 'genkit',
    async open(request: ChatRequest): Promise<ProviderConversation> {
      if (!runtime) {
        runtime = createGenkitRuntime(endpoint);
        runtime.catch(() => {
          runtime = undefined;
        });
      }
      const config: TurnConfig = {
        model: geminiModel(request.model || settings.model),
        tools: request.tools,
        maxOutputTokens: request.maxOutputTokens,
        thinkingBudget: request.thinkingBudget,
        maxRetries: settings.maxRetries ?? DEFAULT_RETRIES,
      };
      return new GenkitConversation(await runtime, config, toGenkitHistory(request.messages));
    },
  };
  return adapter;
};
