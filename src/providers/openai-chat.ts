import { announcingWaits } from './kit/retry-events.js';
import { withRetryListener } from '../net/retry-fetch.js';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions/completions';
import { Conversation, type TurnDelta, type WireTranslation, type WireTurn } from '../core/conversation.js';
import { assistantMessage, type AssistantPart } from '../core/message.js';
import { outputLimit } from '../core/provider.js';
import type { ChatRequest, ProviderAdapter, ProviderConversation } from '../core/provider.js';
import type { Usage } from '../core/usage.js';
import { mapStopReason } from './kit/stop-reason.js';
import { chatOutputTokens, normaliseUsage } from './kit/usage.js';
import type { AdapterFactory, ProviderSettings } from './types.js';
import { ChatEncoder, OPENAI_CHAT_REASONING, toChatTools, withinImageLimits, type ReasoningField } from './openai-chat-messages.js';
import { mapOpenAIError, type OpenAIErrorContext } from './openai-errors.js';
import { openAIPlatform } from './openai-platform.js';
import type { LoadedOpenAI, OpenAIModule } from './openai-sdk.js';

export { MISSING_OPENAI_KEY } from './openai-sdk.js';
export { OPENAI_CHAT_REASONING } from './openai-chat-messages.js';

interface ChatEndpoint {
  model: string;
  getClient: () => Promise<LoadedOpenAI>;
  errors: OpenAIErrorContext;
  official: boolean;
  /** Config's choice of the output limit's field (see outputLimitField). */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** The server counts reasoning outside `completion_tokens` (xAI). */
  reasoningOutsideCompletion: boolean;
}

/**
 * `--provider openai`: Chat Completions against OpenAI or any compatible server (Ollama, vLLM,
 * LM Studio, llama.cpp, OpenRouter, DeepSeek). Key: settings.apiKey, else OPENAI_API_KEY; base URL:
 * settings.baseURL, else OPENAI_BASE_URL. With a base URL and no key, a dummy key is sent.
 */
export const createOpenAIChatAdapter: AdapterFactory = async (settings: ProviderSettings): Promise<ProviderAdapter> => {
  const platform = openAIPlatform(settings, 'openai');
  const endpoint: ChatEndpoint = {
    model: settings.model,
    official: platform.official,
    ...(settings.maxTokensField ? { maxTokensField: settings.maxTokensField } : {}),
    reasoningOutsideCompletion: platform.host === 'api.x.ai',
    errors: platform.errors,
    getClient: platform.getClient,
  };
  return {
    id: 'openai',
    async open(request: ChatRequest): Promise<ProviderConversation> {
      return Conversation.open(chatWire(endpoint, request), request.messages);
    },
  };
};

/** OpenAI's reasoning models (o1, o3, o4-mini, GPT-5 …), also behind a proxy that prefixes the vendor. */
const REASONING_MODEL = /(^|\/)(o\d+|gpt-5)([-.:]|$)/i;

/**
 * Where the output limit goes. `max_tokens` is deprecated in OpenAI's schema and refused by its
 * reasoning models, so OpenAI's API and those models get `max_completion_tokens`; other
 * compatible servers keep `max_tokens`, the field most of them know. Config (`maxTokensField`)
 * overrides both.
 */
export function outputLimitField(model: string, officialApi: boolean, configured: 'max_tokens' | 'max_completion_tokens' | undefined): 'max_tokens' | 'max_completion_tokens' {
  if (configured) return configured;
  return officialApi || REASONING_MODEL.test(model) ? 'max_completion_tokens' : 'max_tokens';
}

/** Chat Completions translation: one message per lossless message, one streamed request per turn. */
function chatWire(endpoint: ChatEndpoint, request: ChatRequest): WireTranslation<readonly ChatCompletionMessageParam[]> {
  let sdk: OpenAIModule | undefined;
  const tools = request.tools.length > 0 ? toChatTools(request.tools) : undefined;
  return {
    service: endpoint.errors.service,
    encoder: () => new ChatEncoder(),
    replaceSystem: 'replace',
    classify: (err, signal) => mapOpenAIError(err, signal, sdk, endpoint.errors),
    async *send(messages, signal, limits) {
      const loaded = await endpoint.getClient();
      sdk = loaded.sdk;
      const maxOutputTokens = outputLimit(request.maxOutputTokens, limits);
      const body: ChatCompletionCreateParamsStreaming = {
        model: request.model || endpoint.model,
        messages: [...withinImageLimits(messages)],
        stream: true,
        stream_options: { include_usage: true },
      };
      if (tools) body.tools = tools;
      if (maxOutputTokens > 0) body[outputLimitField(body.model, endpoint.official, endpoint.maxTokensField)] = maxOutputTokens;
      const stream = yield* announcingWaits((listener) => loaded.client.chat.completions.create(body, { signal, fetchOptions: withRetryListener(listener) }));
      const acc = new ChatTurnAccumulator(endpoint.reasoningOutsideCompletion);
      for await (const chunk of stream) yield* acc.add(chunk);
      return acc.finished ? acc.result() : undefined;
    },
  };
}

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Assembles one streamed Chat Completions reply: text, reasoning, tool calls by index, usage. A
 * refusal (`delta.refusal`, or `message.refusal` from servers that send whole messages) is the
 * answer's text, and the turn stops for `refusal`.
 */
class ChatTurnAccumulator {
  private text = '';
  private refused = false;
  private reasoning = '';
  private reasoningField: ReasoningField = 'reasoning_content';
  private readonly calls = new Map<number, PartialCall>();
  private finishReason: string | null = null;
  private usage: Usage | undefined;
  finished = false;

  constructor(private readonly reasoningOutsideCompletion: boolean) {}

  *add(chunk: ChatCompletionChunk): Generator<TurnDelta> {
    if (chunk.usage) this.usage = usageOf(chunk.usage, this.reasoningOutsideCompletion);
    for (const choice of chunk.choices ?? []) {
      const whole = (choice as { message?: { refusal?: unknown } }).message;
      const delta = (choice.delta ?? whole ?? {}) as ChatCompletionChunk.Choice.Delta & { reasoning_content?: unknown; reasoning?: unknown };
      const field = typeof delta.reasoning_content === 'string' ? 'reasoning_content' : typeof delta.reasoning === 'string' ? 'reasoning' : undefined;
      const thought = field ? (delta[field] as string) : '';
      if (field && thought) {
        this.reasoningField = field;
        this.reasoning += thought;
        yield { type: 'reasoning_delta', text: thought };
      }
      if (typeof delta.content === 'string' && delta.content) {
        this.text += delta.content;
        yield { type: 'text_delta', text: delta.content };
      }
      if (typeof delta.refusal === 'string' && delta.refusal) {
        this.refused = true;
        this.text += delta.refusal;
        yield { type: 'text_delta', text: delta.refusal };
      }
      for (const tc of delta.tool_calls ?? []) {
        const index = tc.index ?? this.indexWithoutIndex(tc.id);
        let call = this.calls.get(index);
        if (!call) {
          call = { id: '', name: '', args: '' };
          this.calls.set(index, call);
        }
        if (tc.id) call.id = tc.id;
        // Some servers repeat the full name in every delta; OpenAI sends it once.
        if (tc.function?.name && tc.function.name !== call.name) call.name += tc.function.name;
        if (tc.function?.arguments) call.args += tc.function.arguments;
      }
      if (choice.finish_reason) {
        this.finishReason = choice.finish_reason;
        this.finished = true;
      }
    }
  }

  /** For servers that omit `index`: a new id starts a new call, anything else continues the last. */
  private indexWithoutIndex(id: string | undefined): number {
    const known = [...this.calls.values()].some((c) => c.id === id);
    if (this.calls.size === 0 || (id && !known)) return this.calls.size;
    return this.calls.size - 1;
  }

  result(): WireTurn {
    const parts: AssistantPart[] = [];
    if (this.reasoning) parts.push({ type: 'reasoning', text: this.reasoning, meta: { field: this.reasoningField } });
    if (this.text) parts.push({ type: 'text', text: this.text });
    const calls = [...this.calls.entries()].sort(([a], [b]) => a - b);
    for (const [index, c] of calls) {
      parts.push({ type: 'tool_call', id: c.id || `call_${index}_${Date.now().toString(36)}`, name: c.name, args: c.args.trim() ? c.args : '{}' });
    }
    const message = assistantMessage(parts, OPENAI_CHAT_REASONING);
    const stopReason = mapStopReason(this.refused ? 'refusal' : this.finishReason, calls.length > 0);
    const explanation = this.finishReason === 'content_filter' ? 'the content filter stopped the answer' : undefined;
    return { message, stopReason, ...(this.usage ? { usage: this.usage } : {}), ...(explanation ? { explanation } : {}) };
  }
}

/** OpenAI counts cached tokens inside prompt_tokens; Keen's `input` excludes them. Output as billed. */
function usageOf(u: NonNullable<ChatCompletionChunk['usage']>, reasoningOutside: boolean): Usage {
  const output = chatOutputTokens(u, reasoningOutside);
  return normaliseUsage({ prompt: u.prompt_tokens, output, cacheRead: u.prompt_tokens_details?.cached_tokens, promptIncludesCache: true });
}
