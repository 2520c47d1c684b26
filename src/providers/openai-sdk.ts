import type OpenAI from 'openai';
import type { ClientOptions } from 'openai';
import { lazy } from '../core/lazy.js';
import { KeenError } from '../errors.js';
import { sdkFetch } from '../net/http-fetch.js';
import { retryingFetch, type RetryPolicy } from '../net/retry-fetch.js';
import { recordingFetch } from './kit/record.js';

/** The `openai` package namespace, loaded on first use (it is slow to import). */
export type OpenAIModule = typeof import('openai');

let loaded: Promise<OpenAIModule> | undefined;

export function loadOpenAI(): Promise<OpenAIModule> {
  loaded ??= import('openai');
  return loaded;
}

/** Where the public OpenAI API lives; used when no baseURL is configured. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Sent to local OpenAI-compatible servers that need no key: the SDK refuses an empty one. */
export const LOCAL_SERVER_DUMMY_KEY = 'keen-no-key';

export const MISSING_OPENAI_KEY = 'OPENAI_API_KEY is not set. Export it, set a baseURL for a local server, or pick another provider with --provider.';

/** Key and base URL for the public API or a compatible server, from settings first, then env. */
export interface OpenAIEndpointConfig {
  /** The key to send: a dummy one for a keyless local server. */
  apiKey: string;
  baseURL: string;
  /** True when talking to api.openai.com rather than a compatible server. */
  official: boolean;
  /** Names the endpoint in error messages. */
  service: string;
}

/** Throws KeenError(MISSING_OPENAI_KEY) when there is neither a key nor a base URL. */
export function resolveOpenAIEndpoint(settings: { apiKey?: string; baseURL?: string; env: NodeJS.ProcessEnv }): OpenAIEndpointConfig {
  const configuredBase = nonEmpty(settings.baseURL) ?? nonEmpty(settings.env.OPENAI_BASE_URL);
  const key = nonEmpty(settings.apiKey) ?? nonEmpty(settings.env.OPENAI_API_KEY);
  if (!key && !configuredBase) throw new KeenError(MISSING_OPENAI_KEY);
  const baseURL = configuredBase ?? OPENAI_DEFAULT_BASE_URL;
  const official = /^https:\/\/api\.openai\.com(\/|$)/.test(baseURL);
  return { apiKey: key ?? LOCAL_SERVER_DUMMY_KEY, baseURL, official, service: official ? 'OpenAI' : `the server at ${baseURL}` };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v && v.trim() ? v.trim() : undefined;
}

/** What differs between the three OpenAI-speaking adapters (Chat Completions, Responses, Codex). */
export interface OpenAIClientSettings {
  /** Names the adapter in recordings (providers/kit/record.ts). */
  provider: 'openai' | 'openai-responses' | 'codex';
  apiKey: ClientOptions['apiKey'];
  baseURL: string;
  retry: RetryPolicy;
  defaultHeaders?: Record<string, string>;
  /** Keen's environment: proxy variables and record mode. */
  env: NodeJS.ProcessEnv;
  /** Send OPENAI_ORG_ID / OPENAI_PROJECT_ID from `env` (the API platform's; not Codex). */
  platformHeaders: boolean;
  /** Credentials a recording must not keep (the key in use). */
  secrets?: readonly (string | undefined)[];
}

/** A loaded client: the SDK namespace (its error classes) and the client. */
export interface LoadedOpenAI {
  sdk: OpenAIModule;
  client: OpenAI;
}

/**
 * The one OpenAI client factory. Builds a client from explicit settings only: the SDK would
 * otherwise read OPENAI_* from `process.env` behind our back. Logging is off so nothing (headers
 * included) reaches stderr, which would also corrupt the terminal UI; failures surface as error
 * events instead. The SDK does not retry: Keen's policy does (capped, announced, cancellable
 * waits), around record mode's fetch when KEEN_RECORD is set. The SDK loads on the first call.
 */
export function openAIClientLoader(s: OpenAIClientSettings): () => Promise<LoadedOpenAI> {
  return lazy(async () => {
    const sdk = await loadOpenAI();
    const send = sdkFetch(s.env);
    const client = new sdk.OpenAI({
      apiKey: s.apiKey,
      baseURL: s.baseURL,
      organization: s.platformHeaders ? (s.env.OPENAI_ORG_ID ?? null) : null,
      project: s.platformHeaders ? (s.env.OPENAI_PROJECT_ID ?? null) : null,
      maxRetries: 0,
      fetch: retryingFetch(s.retry, recordingFetch(s.env, s.provider, send, s.secrets) ?? send),
      defaultHeaders: s.defaultHeaders,
      logLevel: 'off',
    });
    return { sdk, client };
  });
}
