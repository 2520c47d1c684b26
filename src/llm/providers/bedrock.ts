import type { BedrockRuntimeClient, BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import type { Message, ToolMessage } from '../core/message.js';
import { outputLimit, type TurnLimits } from '../core/provider.js';
import type { ChatRequest, ModelTurnEvent, ProviderAdapter, ProviderConversation } from '../core/provider.js';
import type { AdapterFactory, ProviderSettings } from './types.js';
import { bedrockError } from './bedrock-errors.js';
import { TruncatedStreamError, readConverseStream } from './bedrock-stream.js';
import type { WireState } from './bedrock-wire.js';
import { anchorAtEnd, converseInput, pushTurn, systemBlocks, toBedrockMessages, toolResultBlock, toolSpecs } from './bedrock-wire.js';
import { proxiedRequestHandler } from '../net/proxy.js';

type Sdk = typeof import('@aws-sdk/client-bedrock-runtime');

let sdkPromise: Promise<Sdk> | undefined;

/** The SDK, imported on first use; its Node-version warning would corrupt the Ink screen. */
function loadSdk(): Promise<Sdk> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  sdkPromise ??= import('@aws-sdk/client-bedrock-runtime');
  return sdkPromise;
}

/** The SDK logs through this; without it the credential chain warns on the console. */
const SILENT_LOGGER = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/**
 * The endpoint override: config/`--base-url`, else the standard AWS variables (which the SDK
 * would also read itself; reading them here lets a plain `http://` endpoint use HTTP/1.1).
 */
export function bedrockEndpoint(settings: ProviderSettings): string | undefined {
  return settings.baseURL ?? settings.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME ?? settings.env.AWS_ENDPOINT_URL;
}

async function createClient(settings: ProviderSettings): Promise<BedrockRuntimeClient> {
  const sdk = await loadSdk();
  const config: BedrockRuntimeClientConfig = { logger: SILENT_LOGGER };
  // The JS SDK ignores AWS_DEFAULT_REGION (the CLI's variable); honour it too.
  const region = settings.region ?? settings.env.AWS_REGION ?? settings.env.AWS_DEFAULT_REGION;
  if (region) config.region = region;
  if (settings.awsProfile) config.profile = settings.awsProfile;
  if (settings.maxRetries !== undefined) config.maxAttempts = Math.max(0, settings.maxRetries) + 1;
  const endpoint = bedrockEndpoint(settings);
  if (endpoint) {
    config.endpoint = endpoint;
    // The default handler speaks HTTP/2 only; a plain-http endpoint (proxy, local fake) needs HTTP/1.1.
    if (endpoint.startsWith('http://')) {
      const { NodeHttpHandler } = await import('@smithy/node-http-handler');
      config.requestHandler = new NodeHttpHandler();
    }
  }
  const proxied = await proxiedRequestHandler(settings.env, endpoint ?? `https://bedrock-runtime.${region ?? 'us-east-1'}.amazonaws.com`);
  if (proxied) config.requestHandler = proxied as BedrockRuntimeClientConfig['requestHandler'];
  return new sdk.BedrockRuntimeClient(config);
}

class BedrockConversation implements ProviderConversation {
  constructor(
    private readonly client: BedrockRuntimeClient,
    private readonly state: WireState,
    private readonly profile: string | undefined,
  ) {}

  async *streamTurn(signal: AbortSignal, limits?: TurnLimits): AsyncIterable<ModelTurnEvent> {
    const local = new AbortController();
    const onAbort = () => local.abort();
    if (signal.aborted) local.abort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let finished = false;
    try {
      const { ConverseStreamCommand } = await loadSdk();
      const res = await this.client.send(new ConverseStreamCommand(converseInput({ ...this.state, maxTokens: outputLimit(this.state.maxTokens, limits) })), { abortSignal: local.signal });
      if (!res.stream) throw new TruncatedStreamError();
      const reader = readConverseStream(res.stream);
      let step = await reader.next();
      while (!step.done) {
        yield step.value;
        step = await reader.next();
      }
      const turn = step.value;
      finished = true;
      pushTurn(this.state.messages, 'assistant', turn.native.content ?? []);
      if (turn.usage) yield { type: 'usage', usage: turn.usage };
      yield { type: 'turn_end', message: turn.message, stopReason: turn.stopReason };
    } catch (err) {
      finished = true;
      yield { type: 'error', error: bedrockError(err, { modelId: this.state.modelId, profile: this.profile, signal }) };
    } finally {
      signal.removeEventListener('abort', onAbort);
      // The consumer stopped reading early: release the connection.
      if (!finished) local.abort();
    }
  }

  appendToolResults(results: ToolMessage[]): void {
    pushTurn(this.state.messages, 'user', results.map((r) => toolResultBlock(r, this.state.modelId)));
    this.state.anchor = anchorAtEnd(this.state.messages);
  }

  /** Joins the final user turn after its tool results; the cache anchor stays where it was. */
  appendUserText(text: string): void {
    if (!text.trim()) return;
    pushTurn(this.state.messages, 'user', [{ text }]);
    this.state.anchor ??= anchorAtEnd(this.state.messages);
  }

  hasPendingState(): boolean {
    return false;
  }

  /** Keeps the existing system blocks; rebuilds the conversation from the replacement. */
  replaceHistory(replacement: Message[]): void {
    this.state.messages = toBedrockMessages(replacement, this.state.modelId);
    this.state.anchor = anchorAtEnd(this.state.messages);
  }

  fork(): ProviderConversation {
    return new BedrockConversation(this.client, structuredClone(this.state), this.profile);
  }
}

/**
 * `--provider bedrock`: Converse streaming through @aws-sdk/client-bedrock-runtime. Credentials
 * and region come from the SDK's default chain (environment, shared config and profiles, SSO);
 * `awsProfile`, `region` and the endpoint override narrow it. Missing credentials surface as an
 * `auth` error on the first request, since the chain is only resolved then.
 */
export const createBedrockAdapter: AdapterFactory = async (settings) => {
  let client: Promise<BedrockRuntimeClient> | undefined;
  const adapter: ProviderAdapter = {
    id: 'bedrock',
    async open(request: ChatRequest): Promise<ProviderConversation> {
      if (!client) {
        client = createClient(settings);
        client.catch(() => {
          client = undefined;
        });
      }
      const state: WireState = {
        modelId: request.model || settings.model,
        system: systemBlocks(request.messages),
        messages: toBedrockMessages(request.messages, request.model || settings.model),
        tools: toolSpecs(request.tools),
        anchor: undefined,
        maxTokens: request.maxOutputTokens,
        thinkingBudget: request.thinkingBudget,
      };
      state.anchor = anchorAtEnd(state.messages);
      return new BedrockConversation(await client, state, settings.awsProfile);
    },
  };
  return adapter;
};
