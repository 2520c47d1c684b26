/**
 * The Anthropic Messages adapter: translation only. The shared Conversation owns the history;
 * this file sends one streamed request per turn built from it.
 */
import { announcingWaits } from './kit/retry-events.js';
import { KeenError } from '../errors.js';
import { Conversation, type WireTranslation } from '../core/conversation.js';
import { lazy } from '../core/lazy.js';
import { outputLimit } from '../core/provider.js';
import type { ChatRequest, ProviderAdapter, ProviderConversation } from '../core/provider.js';
import { mapAnthropicError } from './anthropic-errors.js';
import { TurnAssembler } from './anthropic-turn.js';
import { AnthropicEncoder, buildRequestBody, requestHeaders, toNativeTools, type NativeHistory, type NativeTool, type RequestSettings } from './anthropic-wire.js';
import { LibraryWarnings } from './kit/library-warnings.js';
import { recordingFetch } from './kit/record.js';
import type { Messages } from './anthropic-sdk.js';
import type { AdapterFactory } from './types.js';
import { retryingFetch, retryPolicy, withRetryListener, type RetryPolicy } from '../net/retry-fetch.js';
import { sdkFetch } from '../net/http-fetch.js';
import { anthropicCredential, type AnthropicCredential } from './anthropic-auth.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export const ANTHROPIC_MISSING_KEY_MESSAGE = 'ANTHROPIC_API_KEY is not set. Export it, or pick another provider with --provider.';

interface ClientContext {
  messages: Messages;
  baseURL: string;
  /** The SDK's warnings (a deprecated model, a deprecated thinking form), as Keen's warning line. */
  warnings: LibraryWarnings;
}

/**
 * Builds the Anthropic adapter. The key comes from `settings.apiKey`, else `ANTHROPIC_API_KEY`;
 * the base URL from `settings.baseURL`, else `ANTHROPIC_BASE_URL`. The SDK (slow to import)
 * is loaded on the first `open`, not here.
 */
export const createAnthropicAdapter: AdapterFactory = async (settings) => {
  const apiKey = anthropicCredential(settings);
  if (!apiKey) throw new KeenError(ANTHROPIC_MISSING_KEY_MESSAGE);
  const baseURL = settings.baseURL || settings.env.ANTHROPIC_BASE_URL || ANTHROPIC_DEFAULT_BASE_URL;
  const warnings = new LibraryWarnings('Anthropic', settings.onWarning);
  const load = lazy(() => createClient(apiKey, baseURL, retryPolicy(settings), settings.env, warnings));
  const adapter: ProviderAdapter = {
    id: 'anthropic',
    async open(request: ChatRequest): Promise<ProviderConversation> {
      const ctx = await load();
      const requestSettings: RequestSettings = {
        model: request.model,
        maxOutputTokens: request.maxOutputTokens,
        thinkingBudget: request.thinkingBudget,
        promptCache: request.promptCache,
      };
      return Conversation.open(anthropicWire(ctx, requestSettings, toNativeTools(request.tools)), request.messages);
    },
  };
  return adapter;
};

/**
 * Every value is explicit so the SDK reads no ANTHROPIC_* variable, credential profile or config
 * file behind our back. Logging and tracing are off: nothing may reach the terminal under the UI.
 * The SDK does not retry: Keen's policy does (net/retry-fetch.ts).
 */
async function createClient(apiKey: AnthropicCredential, baseURL: string, retry: RetryPolicy, env: NodeJS.ProcessEnv, warnings: LibraryWarnings): Promise<ClientContext> {
  const { createMessagesClient } = await import('./anthropic-sdk.js');
  // Keen retries (capped, announced, cancellable waits); a KEEN_RECORD session records every attempt.
  const send = sdkFetch(env);
  const fetch = retryingFetch(retry, recordingFetch(env, 'anthropic', send, [apiKey.apiKey, apiKey.authToken]) ?? send);
  const messages = createMessagesClient({ ...apiKey, baseURL, maxRetries: 0, fetch, logLevel: 'off', openTelemetry: false });
  return { messages, baseURL, warnings };
}

/**
 * The Anthropic translation: the encoder (anthropic-wire.ts), one streamed request per turn with
 * its cache breakpoints (the message breakpoint sits on the newest message), the decoder
 * (anthropic-turn.ts) and the error map. System blocks survive a compaction (`keep`).
 */
function anthropicWire(ctx: ClientContext, settings: RequestSettings, tools: NativeTool[]): WireTranslation<NativeHistory> {
  return {
    service: 'Anthropic',
    encoder: () => new AnthropicEncoder(tools),
    replaceSystem: 'keep',
    classify: (err, signal) => mapAnthropicError(err, { signal, baseURL: ctx.baseURL }),
    async *send(native, signal, limits) {
      const body = buildRequestBody(native, { ...settings, sessionMaxOutputTokens: settings.maxOutputTokens, maxOutputTokens: outputLimit(settings.maxOutputTokens, limits) });
      const stream = yield* announcingWaits((listener) =>
        ctx.warnings.during(() => ctx.messages.create(body, { signal, headers: requestHeaders(body), fetchOptions: withRetryListener(listener) })),
      );
      const assembler = new TurnAssembler();
      for await (const event of stream) yield* assembler.accept(event);
      // The SDK ends iteration quietly when the signal fires mid-stream; the conversation sees the signal.
      return assembler.finish();
    },
  };
}
