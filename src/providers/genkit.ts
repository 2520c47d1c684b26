import type { GenerateResponseChunk, MessageData } from 'genkit';
import { KeenError } from '../errors.js';
import { Conversation, type WireTranslation } from '../core/conversation.js';
import { lazy } from '../core/lazy.js';
import { outputLimit } from '../core/provider.js';
import type { ChatRequest, ProviderAdapter, ProviderConversation, ToolDefinition } from '../core/provider.js';
import type { AdapterFactory } from './types.js';
import { planRetry, retryPolicy, waitFor, type RetryPolicy } from '../net/retry-fetch.js';
import { geminiRequestedWaitMs, genkitError, genkitRetryStatus } from './genkit-errors.js';
import { GenkitEncoder, withinImageLimits } from './genkit-messages.js';
import { blockedReply, replyOf } from './genkit-reply.js';
import { pushedValues } from './kit/pushed-values.js';
import type { GenkitRuntime } from './genkit-runtime.js';
import { createGenkitRuntime, GEMINI_ORIGIN, splitBaseUrl } from './genkit-runtime.js';

interface TurnConfig {
  model: string;
  tools: ToolDefinition[];
  maxOutputTokens: number;
  thinkingBudget?: number;
  retry: RetryPolicy;
  /** Where the requests go, for the retry announcement. */
  host: string;
}

/** A Genkit failure and the attempts spent on it, for the error line. */
class GenkitFailure extends Error {
  constructor(
    readonly original: unknown,
    readonly attempts: number,
    readonly note?: string,
  ) {
    super('genkit request failed');
  }
}

/**
 * The Genkit translation: the encoder (genkit-messages.ts), one streamed `generate` per turn,
 * retried under Keen's policy (net/retry-fetch.ts: same cap and announcement as every provider;
 * only before anything reached the caller, so no delta is shown twice), and the decoder over
 * Genkit's final message.
 */
function genkitWire(runtime: GenkitRuntime, config: TurnConfig): WireTranslation<readonly MessageData[]> {
  const generate = (messages: readonly MessageData[], signal: AbortSignal, maxOutputTokens: number, onChunk: (chunk: GenerateResponseChunk) => void) => {
    const { ai, modules } = runtime;
    // Fresh tool actions per call: Genkit registers them per request and complains about reuse.
    const tools = config.tools.map((t) => ai.dynamicTool({ name: t.name, description: t.description, inputJsonSchema: t.input_schema as never }));
    const thinking = config.thinkingBudget && config.thinkingBudget > 0;
    return ai.generate({
      model: modules.google.googleAI.model(config.model),
      onChunk,
      // Genkit wraps what it is given; copies keep the encoder's history its own.
      messages: withinImageLimits(messages).map((m) => ({ ...m, content: [...m.content] })),
      tools,
      returnToolRequests: true,
      abortSignal: signal,
      config: {
        maxOutputTokens,
        ...(thinking ? { thinkingConfig: { thinkingBudget: config.thinkingBudget, includeThoughts: true } } : {}),
      },
    });
  };
  return {
    service: 'Gemini',
    encoder: () => new GenkitEncoder(),
    replaceSystem: 'replace',
    classify: (err, signal) =>
      err instanceof GenkitFailure
        ? genkitError(err.original, { model: config.model, signal, attempts: err.attempts, note: err.note })
        : genkitError(err, { model: config.model, signal }),
    async *send(messages, signal, limits) {
      const maxOutputTokens = outputLimit(config.maxOutputTokens, limits);
      for (let retry = 1; ; retry++) {
        let received = false;
        try {
          const stream = pushedValues((onChunk: (chunk: GenerateResponseChunk) => void) => generate(messages, signal, maxOutputTokens, onChunk));
          for (;;) {
            const step = await stream.next();
            if (step.done) return replyOf(step.value);
            for (const part of step.value.content) {
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
        } catch (err) {
          const blocked = blockedReply(err);
          if (blocked) return blocked;
          const status = received || signal.aborted ? undefined : genkitRetryStatus(err);
          const plan = status === undefined ? undefined : planRetry(config.retry, retry, geminiRequestedWaitMs(err));
          if (status === undefined || !plan || plan.kind !== 'wait') throw new GenkitFailure(err, retry, plan?.kind === 'too_long' ? plan.note : undefined);
          yield { type: 'retry_wait', wait: { host: config.host, status, waitMs: plan.waitMs, retry, of: config.retry.maxRetries } };
          await waitFor(plan.waitMs, signal);
        }
      }
    },
  };
}

function hostOf(baseUrl: string | undefined): string {
  try {
    return new URL(baseUrl ?? GEMINI_ORIGIN).host;
  } catch {
    return 'Gemini';
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
  const runtime = lazy(() => createGenkitRuntime(endpoint, settings.env));
  const adapter: ProviderAdapter = {
    id: 'genkit',
    async open(request: ChatRequest): Promise<ProviderConversation> {
      const config: TurnConfig = {
        model: geminiModel(request.model || settings.model),
        tools: request.tools,
        maxOutputTokens: request.maxOutputTokens,
        thinkingBudget: request.thinkingBudget,
        retry: retryPolicy(settings),
        host: hostOf(endpoint.baseUrl),
      };
      return Conversation.open(genkitWire(await runtime(), config), request.messages);
    },
  };
  return adapter;
};
