import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions/completions';
import type { LlmError } from '../core/errors.js';
import type { AssistantMessage, Message, ToolCall, ToolMessage } from '../core/message.js';
import { outputLimit, type TurnLimits } from '../core/provider.js';
import type { ChatRequest, ModelTurnEvent, ProviderAdapter, ProviderConversation } from '../core/provider.js';
import type { Usage } from '../core/usage.js';
import type { AdapterFactory, ProviderSettings } from './types.js';
import { assistantMessage, toChatMessages, toChatTools, toolResultMessage, type ServerReasoning } from './openai-chat-messages.js';
import { mapOpenAIError, truncatedStream, type OpenAIErrorContext } from './openai-errors.js';
import { createOpenAIClient, lazy, resolveOpenAIEndpoint, type OpenAIModule } from './openai-sdk.js';

export { MISSING_OPENAI_KEY } from './openai-sdk.js';

/** Reasoning parts produced by Chat Completions servers carry this provider tag. */
export const OPENAI_CHAT_REASONING = 'openai';

interface ChatEndpoint {
  model: string;
  getClient: () => Promise<{ sdk: OpenAIModule; client: OpenAI }>;
  errors: OpenAIErrorContext;
  /** api.openai.com wants `max_completion_tokens`; most compatible servers only know `max_tokens`. */
  officialApi: boolean;
}

/**
 * `--provider openai`: Chat Completions against OpenAI or any compatible server (Ollama, vLLM,
 * LM Studio, llama.cpp, OpenRouter, DeepSeek). Key: settings.apiKey, else OPENAI_API_KEY; base URL:
 * settings.baseURL, else OPENAI_BASE_URL. With a base URL and no key, a dummy key is sent.
 */
export const createOpenAIChatAdapter: AdapterFactory = async (settings: ProviderSettings): Promise<ProviderAdapter> => {
  const target = resolveOpenAIEndpoint(settings);
  const retries = settings.maxRetries ?? 2;
  const endpoint: ChatEndpoint = {
    model: settings.model,
    officialApi: target.official,
    errors: {
      service: target.service,
      authHint: 'Check OPENAI_API_KEY (or the model\'s apiKeyEnv).',
      retries,
    },
    getClient: lazy(() =>
      createOpenAIClient({ apiKey: target.apiKey, baseURL: target.baseURL, maxRetries: retries, env: settings.env }),
    ),
  };
  return {
    id: 'openai',
    async open(request: ChatRequest): Promise<ProviderConversation> {
      return new ChatConversation(endpoint, request, toChatMessages(request.messages));
    },
  };
};

/** Native history: OpenAI chat messages, system messages included. */
class ChatConversation implements ProviderConversation {
  constructor(
    private readonly endpoint: ChatEndpoint,
    private readonly request: ChatRequest,
    private messages: ChatCompletionMessageParam[],
  ) {}

  async *streamTurn(signal: AbortSignal, limits?: TurnLimits): AsyncIterable<ModelTurnEvent> {
    const { endpoint } = this;
    let sdk: OpenAIModule | undefined;
    const local = new AbortController();
    const onAbort = () => local.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) local.abort();
    let finished = false;
    try {
      const loaded = await endpoint.getClient();
      sdk = loaded.sdk;
      const stream = await loaded.client.chat.completions.create(this.body(outputLimit(this.request.maxOutputTokens, limits)), { signal: local.signal });
      const acc = new ChatTurnAccumulator();
      for await (const chunk of stream) {
        for (const ev of acc.add(chunk)) yield ev;
      }
      if (signal.aborted) {
        finished = true;
        yield { type: 'error', error: mapOpenAIError(undefined, signal, sdk, endpoint.errors) };
        return;
      }
      if (!acc.finished) {
        finished = true;
        yield { type: 'error', error: truncatedStream(endpoint.errors) };
        return;
      }
      const { message, calls, stopReason, usage, serverReasoning } = acc.result();
      for (const call of calls) yield { type: 'tool_call', call };
      if (usage) yield { type: 'usage', usage };
      this.messages.push(assistantMessage(message.content, calls, serverReasoning));
      finished = true;
      yield { type: 'turn_end', message, stopReason };
    } catch (err) {
      finished = true;
      const error: LlmError = mapOpenAIError(err, signal, sdk, endpoint.errors);
      yield { type: 'error', error };
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (!finished) local.abort();
    }
  }

  private body(maxOutputTokens: number): ChatCompletionCreateParamsStreaming {
    const { request, endpoint } = this;
    const body: ChatCompletionCreateParamsStreaming = {
      model: request.model || endpoint.model,
      messages: this.messages,
      stream: true,
      stream_options: { include_usage: true },
    };
    if (request.tools.length > 0) body.tools = toChatTools(request.tools);
    if (maxOutputTokens > 0) {
      if (endpoint.officialApi) body.max_completion_tokens = maxOutputTokens;
      else body.max_tokens = maxOutputTokens;
    }
    return body;
  }

  appendToolResults(results: ToolMessage[]): void {
    for (const r of results) this.messages.push(toolResultMessage(r));
  }

  appendUserText(text: string): void {
    this.messages.push({ role: 'user', content: text });
  }

  hasPendingState(): boolean {
    return false;
  }

  replaceHistory(replacement: Message[]): void {
    this.messages = toChatMessages(replacement);
  }

  fork(): ProviderConversation {
    return new ChatConversation(this.endpoint, this.request, structuredClone(this.messages));
  }
}

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

/** Assembles one streamed Chat Completions reply: text, reasoning, tool calls by index, usage. */
class ChatTurnAccumulator {
  private text = '';
  private reasoning = '';
  private reasoningField: ServerReasoning['field'] = 'reasoning_content';
  private readonly calls = new Map<number, PartialCall>();
  private finishReason: string | null = null;
  private usage: Usage | undefined;
  finished = false;

  *add(chunk: ChatCompletionChunk): Generator<ModelTurnEvent> {
    if (chunk.usage) this.usage = normaliseUsage(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & { reasoning_content?: unknown; reasoning?: unknown };
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

  result(): {
    message: AssistantMessage;
    calls: ToolCall[];
    stopReason: 'end_turn' | 'tool_use' | 'max_tokens' | 'other';
    usage?: Usage;
    serverReasoning?: ServerReasoning;
  } {
    const calls: ToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => ({ id: c.id || `call_${index}_${Date.now().toString(36)}`, name: c.name, args: c.args.trim() ? c.args : '{}' }));
    const message: AssistantMessage = { role: 'assistant', content: this.text };
    if (calls.length) message.tool_calls = calls;
    if (this.reasoning) message.reasoning = [{ provider: OPENAI_CHAT_REASONING, text: this.reasoning }];
    const stopReason =
      calls.length > 0 ? 'tool_use' : this.finishReason === 'length' ? 'max_tokens' : this.finishReason === 'stop' ? 'end_turn' : 'other';
    const serverReasoning = this.reasoning ? { field: this.reasoningField, text: this.reasoning } : undefined;
    return { message, calls, stopReason, usage: this.usage, serverReasoning };
  }
}

/** OpenAI counts cached tokens inside prompt_tokens; Keen's `input` excludes them. */
function normaliseUsage(u: NonNullable<ChatCompletionChunk['usage']>): Usage {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return { input: Math.max(0, (u.prompt_tokens ?? 0) - cached), output: u.completion_tokens ?? 0, cache_read: cached, cache_write: 0 };
}
