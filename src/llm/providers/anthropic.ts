/**
 * The Anthropic Messages adapter: keeps the native history (system blocks, content blocks with
 * thinking signatures, tool definitions) and streams one turn at a time for the shared loop.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages';
import { KeenError } from '../../errors.js';
import { llmError } from '../core/errors.js';
import { stripSystem, type Message, type ToolMessage } from '../core/message.js';
import { outputLimit, type TurnLimits } from '../core/provider.js';
import type { ChatRequest, ModelTurnEvent, ProviderAdapter, ProviderConversation } from '../core/provider.js';
import { mapAnthropicError } from './anthropic-errors.js';
import { TurnAssembler } from './anthropic-turn.js';
import {
  buildRequestBody,
  toNativeMessages,
  toNativeTools,
  toolResultBlock,
  toSystemBlocks,
  userTextMessage,
  type NativeHistory,
  type RequestSettings,
} from './anthropic-wire.js';
import type { AdapterFactory } from './types.js';
import { anthropicCredential, type AnthropicCredential } from '../net/anthropic-auth.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export const ANTHROPIC_MISSING_KEY_MESSAGE = 'ANTHROPIC_API_KEY is not set. Export it, or pick another provider with --provider.';

interface ClientContext {
  client: Anthropic;
  baseURL: string;
}

/**
 * Builds the Anthropic adapter. The key comes from `settings.apiKey`, else `ANTHROPIC_API_KEY`;
 * the base URL from `settings.baseURL`, else `ANTHROPIC_BASE_URL`. The SDK (~300 ms to import)
 * is loaded on the first `open`, not here.
 */
export const createAnthropicAdapter: AdapterFactory = async (settings) => {
  const apiKey = anthropicCredential(settings);
  if (!apiKey) throw new KeenError(ANTHROPIC_MISSING_KEY_MESSAGE);
  const baseURL = settings.baseURL || settings.env.ANTHROPIC_BASE_URL || ANTHROPIC_DEFAULT_BASE_URL;
  let context: Promise<ClientContext> | undefined;
  const load = () => {
    context ??= createClient(apiKey, baseURL, settings.maxRetries ?? 2).catch((err) => {
      context = undefined;
      throw err;
    });
    return context;
  };
  const adapter: ProviderAdapter = {
    id: 'anthropic',
    async open(request: ChatRequest): Promise<ProviderConversation> {
      const ctx = await load();
      const history: NativeHistory = {
        system: toSystemBlocks(request.messages),
        messages: toNativeMessages(stripSystem(request.messages)),
        tools: toNativeTools(request.tools),
      };
      const requestSettings: RequestSettings = {
        model: request.model,
        maxOutputTokens: request.maxOutputTokens,
        thinkingBudget: request.thinkingBudget,
      };
      return new AnthropicConversation(ctx, requestSettings, history);
    },
  };
  return adapter;
};

/**
 * Every value is explicit so the SDK reads no ANTHROPIC_* variable, credential profile or config
 * file behind our back. Logging and tracing are off: nothing may reach the terminal under the UI.
 * The SDK retries 408/409/429/5xx and connection failures `maxRetries` times, honouring
 * `retry-after-ms` / `retry-after`, before an error surfaces.
 */
async function createClient(apiKey: AnthropicCredential, baseURL: string, maxRetries: number): Promise<ClientContext> {
  const sdk = await import('@anthropic-ai/sdk');
  const client = new sdk.default({ ...apiKey, baseURL, maxRetries, logLevel: 'off', openTelemetry: false });
  return { client, baseURL };
}

/**
 * One native Anthropic conversation.
 *
 * `appendUserText` always adds a NEW user message, even after a user turn of tool results: the
 * API merges consecutive user messages into one turn, and keeping them separate makes a fork's
 * request the parent's request plus exactly one final message (the nested compaction request
 * reuses the parent's prompt cache). Only the message cache breakpoint differs: it sits on the
 * newest message.
 */
class AnthropicConversation implements ProviderConversation {
  constructor(
    private readonly ctx: ClientContext,
    private readonly settings: RequestSettings,
    private history: NativeHistory,
  ) {}

  async *streamTurn(signal: AbortSignal, limits?: TurnLimits): AsyncIterable<ModelTurnEvent> {
    const errorContext = { signal, baseURL: this.ctx.baseURL };
    const assembler = new TurnAssembler();
    try {
      const body = buildRequestBody(this.history, { ...this.settings, maxOutputTokens: outputLimit(this.settings.maxOutputTokens, limits) });
      // Our narrower block types are a subset of the SDK's per-role unions.
      const params = body as unknown as MessageCreateParamsStreaming;
      const stream = await this.ctx.client.messages.create(params, { signal });
      for await (const event of stream) {
        for (const out of assembler.accept(event)) yield out;
      }
    } catch (err) {
      yield { type: 'error', error: mapAnthropicError(err, errorContext) };
      return;
    }
    // The SDK ends iteration quietly when the signal fires mid-stream.
    if (signal.aborted) {
      yield { type: 'error', error: llmError('cancelled', 'Request cancelled.') };
      return;
    }
    const turn = assembler.finish();
    if (!turn) {
      const error = llmError('network', 'The Anthropic stream ended before the reply was complete (connection closed early).');
      yield { type: 'error', error };
      return;
    }
    // An empty assistant turn would be rejected on the next request; the API merges the user turns around it.
    if (turn.blocks.length > 0) this.history.messages.push({ role: 'assistant', content: turn.blocks });
    yield { type: 'usage', usage: turn.usage };
    yield { type: 'turn_end', message: turn.message, stopReason: turn.stopReason };
  }

  appendToolResults(results: ToolMessage[]): void {
    if (results.length === 0) return;
    this.history.messages.push({ role: 'user', content: results.map(toolResultBlock) });
  }

  /** Empty text is ignored: the API rejects empty text blocks. */
  appendUserText(text: string): void {
    if (text === '') return;
    this.history.messages.push(userTextMessage(text));
  }

  hasPendingState(): boolean {
    return false;
  }

  /** Keeps the existing system blocks (and tools); rebuilds messages from the replacement. */
  replaceHistory(replacement: Message[]): void {
    this.history = { ...this.history, messages: toNativeMessages(stripSystem(replacement)) };
  }

  fork(): ProviderConversation {
    return new AnthropicConversation(this.ctx, { ...this.settings }, structuredClone(this.history));
  }
}
