import { format } from 'node:util';
import type { BedrockRuntimeClient, BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import { Conversation, type WireTranslation } from '../core/conversation.js';
import { lazy } from '../core/lazy.js';
import { outputLimit } from '../core/provider.js';
import type { ChatRequest, ProviderAdapter, ProviderConversation } from '../core/provider.js';
import type { ProviderSettings } from './types.js';
import { bedrockError } from './bedrock-errors.js';
import { holdConsoleWarnings, type ConsoleWarningRoute } from './kit/console-warnings.js';
import { LibraryWarnings } from './kit/library-warnings.js';
import { recordingHandler } from './bedrock-record.js';
import { sendWithRetries } from './bedrock-retry.js';
import { readConverseStream } from './bedrock-stream.js';
import { ConverseEncoder, converseInput, toolSpecs, type ConverseHistory } from './bedrock-wire.js';
import { type HttpTimeouts, MODEL_API_TIMEOUTS } from '../net/http-fetch.js';
import { proxiedRequestHandler } from '../net/proxy.js';
import { retryPolicy } from '../net/retry-fetch.js';
import { addCredentials, scrubText } from '../security/scrubber.js';

const importSdk = lazy(() => import('@aws-sdk/client-bedrock-runtime'));

/** The SDK, imported on first use; its Node-version warning would corrupt the Ink screen. */
function loadSdk(): ReturnType<typeof importSdk> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  return importSdk();
}

/**
 * The SDK logs through this (without one, the credential chain warns on the console): its
 * warnings (two credential sources set, a credential refresh that failed, a reply it had to
 * coerce) become Keen's warning line, once per session per text, scrubbed. `info` and `error` are
 * the per-request log of every command and its failure, which Keen reports itself: dropped.
 */
function sdkLogger(warnings: LibraryWarnings): NonNullable<BedrockRuntimeClientConfig['logger']> {
  return { trace() {}, debug() {}, info() {}, warn: (...args: unknown[]) => warnings.report(scrubText(format(...args))), error() {} };
}

/** The AWS SDK's own tag on the warnings it prints with a bare console.warn. */
const SDK_TAG = /^@(?:aws-sdk|smithy)\/\S+ - WARN - /;

/**
 * What the SDK `console.warn`s past its logger while a request is in flight (its JSON codec's
 * "JsonCodec2: you have called a string method on a Uint8Array request body"): recognised by
 * its tag or the codec's name, reported like the logger's warnings without the tag. Any other
 * text is not the SDK's and passes through.
 */
function sdkConsole(warnings: LibraryWarnings): ConsoleWarningRoute {
  return {
    recognises: (text) => SDK_TAG.test(text) || /\bJsonCodec\d*:/.test(text),
    report: (text) => warnings.report(scrubText(text.replace(SDK_TAG, ''))),
  };
}

/**
 * The endpoint override: config/`--base-url`, else the standard AWS variables (which the SDK
 * would also read itself; reading them here lets a plain `http://` endpoint use HTTP/1.1).
 */
export function bedrockEndpoint(settings: ProviderSettings): string | undefined {
  return settings.baseURL ?? settings.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME ?? settings.env.AWS_ENDPOINT_URL;
}

function defaultEndpoint(region: string | undefined): string {
  return `https://bedrock-runtime.${region ?? 'us-east-1'}.amazonaws.com`;
}

/** The host requests go to, for the retry announcement. */
function bedrockHost(settings: ProviderSettings): string {
  const url = bedrockEndpoint(settings) ?? defaultEndpoint(settings.region ?? settings.env.AWS_REGION ?? settings.env.AWS_DEFAULT_REGION);
  try {
    return new URL(url).host;
  } catch {
    return 'Bedrock';
  }
}

async function createClient(settings: ProviderSettings, limits: HttpTimeouts, warnings: LibraryWarnings): Promise<BedrockRuntimeClient> {
  const [sdk, { NodeHttpHandler, NodeHttp2Handler }] = await Promise.all([loadSdk(), import('@smithy/node-http-handler')]);
  const config: BedrockRuntimeClientConfig = { logger: sdkLogger(warnings) };
  // The JS SDK ignores AWS_DEFAULT_REGION (the CLI's variable); honour it too.
  const region = settings.region ?? settings.env.AWS_REGION ?? settings.env.AWS_DEFAULT_REGION;
  if (region) config.region = region;
  if (settings.awsProfile) config.profile = settings.awsProfile;
  // Keen retries (bedrock-retry.ts): the SDK's waits could be neither capped nor cancelled.
  config.maxAttempts = 1;
  const endpoint = bedrockEndpoint(settings);
  if (endpoint) config.endpoint = endpoint;
  // The model APIs' time limits (http-fetch.ts MODEL_API_TIMEOUTS). Over HTTP/1.1 the SDK sets
  // none: a stream that goes silent (a dropped network) hung the turn for ever. Its HTTP/2 handler
  // (one session per stream, as the SDK's default) already ends a session idle for 300 s; the
  // stream gets the same limit, and HTTP/2 has no connect limit. A plain-http endpoint (proxy,
  // local fake) needs HTTP/1.1.
  config.requestHandler = endpoint?.startsWith('http://')
    ? new NodeHttpHandler({ connectionTimeout: limits.connectTimeoutMs, socketTimeout: limits.bodyTimeoutMs })
    : new NodeHttp2Handler({ disableConcurrentStreams: true, requestTimeout: limits.bodyTimeoutMs });
  const proxied = await proxiedRequestHandler(settings.env, endpoint ?? defaultEndpoint(region), limits);
  if (proxied) config.requestHandler = proxied as BedrockRuntimeClientConfig['requestHandler'];
  const recording = await recordingHandler(settings.env, config.requestHandler as never, !!endpoint?.startsWith('http://'));
  if (recording) config.requestHandler = recording as never;
  const client = new sdk.BedrockRuntimeClient(config);
  knowResolvedCredentials(client);
  return client;
}

/**
 * The keys the SDK's chain resolves (environment, a profile in ~/.aws/credentials or config, SSO,
 * `credential_process`, …) become known to the scrubber as they are resolved, before the request
 * they sign is sent: an error that quotes them prints `[REDACTED]`. The client reads
 * `config.credentials` for every request, so the wrapper sees each resolution (a refresh too).
 */
function knowResolvedCredentials(client: BedrockRuntimeClient): void {
  const resolve = client.config.credentials;
  client.config.credentials = async (options) => {
    const identity = await resolve(options);
    addCredentials([identity.accessKeyId, identity.secretAccessKey, identity.sessionToken]);
    return identity;
  };
}

/**
 * The Converse translation: the encoder (bedrock-wire.ts: alternation, merged user turns, cache
 * anchor), one ConverseStream request per turn, the decoder (bedrock-stream.ts) and the error
 * map. System blocks survive a compaction (`keep`).
 */
function converseWire(
  client: BedrockRuntimeClient,
  request: ChatRequest,
  modelId: string,
  settings: ProviderSettings,
  consoleRoute: ConsoleWarningRoute,
): WireTranslation<ConverseHistory> {
  const profile = settings.awsProfile;
  const retry = retryPolicy(settings);
  const host = bedrockHost(settings);
  const tools = toolSpecs(request.tools);
  return {
    service: 'Bedrock',
    encoder: () => new ConverseEncoder(modelId),
    replaceSystem: 'keep',
    classify: (err, signal) => bedrockError(err, { modelId, profile, signal }),
    async *send(history, signal, limits) {
      const { ConverseStreamCommand } = await loadSdk();
      const input = converseInput({
        modelId,
        history,
        tools,
        maxTokens: outputLimit(request.maxOutputTokens, limits),
        sessionMaxTokens: request.maxOutputTokens,
        thinkingBudget: request.thinkingBudget,
        promptCache: request.promptCache,
      });
      // The request and its stream, from the first attempt to the last event.
      const held = holdConsoleWarnings(consoleRoute);
      try {
        const res = yield* sendWithRetries(retry, host, signal, () => held.run(() => client.send(new ConverseStreamCommand(input), { abortSignal: signal })));
        return res.stream ? yield* readConverseStream(res.stream) : undefined;
      } finally {
        held.release();
      }
    },
  };
}

/**
 * `--provider bedrock`: Converse streaming through @aws-sdk/client-bedrock-runtime. Credentials
 * and region come from the SDK's default chain (environment, shared config and profiles, SSO);
 * `awsProfile`, `region` and the endpoint override narrow it. Missing credentials surface as an
 * `auth` error on the first request, since the chain is only resolved then.
 */
export async function createBedrockAdapter(settings: ProviderSettings, limits: HttpTimeouts = MODEL_API_TIMEOUTS): Promise<ProviderAdapter> {
  const warnings = new LibraryWarnings('Bedrock', settings.onWarning);
  const consoleRoute = sdkConsole(warnings);
  const client = lazy(() => createClient(settings, limits, warnings));
  const adapter: ProviderAdapter = {
    id: 'bedrock',
    async open(request: ChatRequest): Promise<ProviderConversation> {
      const modelId = request.model || settings.model;
      return Conversation.open(converseWire(await client(), request, modelId, settings, consoleRoute), request.messages);
    },
  };
  return adapter;
}
