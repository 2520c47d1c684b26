import type { Genkit } from 'genkit';
import { lazy } from '../core/lazy.js';
import { MODEL_API_TIMEOUTS, sdkFetch } from '../net/http-fetch.js';
import { proxyConfigured } from '../net/proxy.js';
import { recordingFetch } from './kit/record.js';

type GenkitModule = typeof import('genkit');
type GooglePlugin = typeof import('@genkit-ai/google-genai');

export interface GenkitModules {
  genkit: GenkitModule;
  google: GooglePlugin;
  /** Milliseconds the first import took (the ~0.5–1 s cost this provider pays once). */
  importMs: number;
}

/** A Genkit instance bound to one Gemini key and endpoint, plus the loaded modules. */
export interface GenkitRuntime {
  ai: Genkit;
  modules: GenkitModules;
}

export interface GeminiEndpoint {
  apiKey: string;
  /** Origin (and path prefix) without the API version, e.g. `https://generativelanguage.googleapis.com`. */
  baseUrl?: string;
  apiVersion?: string;
}

/** Genkit logs through this global logger; anything it printed would corrupt the Ink screen. */
const SILENT_LOGGER = { level: 'error', shouldLog: () => false, debug() {}, info() {}, warn() {}, error() {} };

async function importGenkit(): Promise<GenkitModules> {
  const started = performance.now();
  const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  const [genkit, google, logging, tracing] = await Promise.all([import('genkit'), import('@genkit-ai/google-genai'), import('genkit/logging'), import('genkit/tracing')]);
  // Genkit otherwise starts an OpenTelemetry SDK on the first request (slow, and a SIGTERM
  // handler); Keen exports no traces.
  tracing.disableGenkitOTelInitialization();
  // Importing genkit installs SIGINT/SIGTERM handlers that call process.exit(0), which would skip
  // Keen's own Ctrl-C handling and exit with success; remove exactly those.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) {
      if (!before[signal].includes(listener) && listener.name === 'shutdown') process.removeListener(signal, listener);
    }
  }
  logging.logger.init(SILENT_LOGGER);
  return { genkit, google, importMs: Math.round(performance.now() - started) };
}

/** Genkit and the Google AI plugin, imported once per process on first use (a failed import is retried). */
export const loadGenkit = lazy(importGenkit);

/**
 * Splits a configured base URL into Genkit's `baseUrl` and `apiVersion` (Genkit appends the
 * version itself, so `https://host/v1beta` must not become `https://host/v1beta/v1beta`).
 */
export function splitBaseUrl(url: string | undefined): { baseUrl?: string; apiVersion?: string } {
  if (!url) return {};
  const trimmed = url.replace(/\/+$/, '');
  const m = /^(.*)\/(v1(?:alpha|beta)?\d*)$/.exec(trimmed);
  return m ? { baseUrl: m[1], apiVersion: m[2] } : { baseUrl: trimmed };
}

/** Where Gemini requests go when no base URL is configured. */
export const GEMINI_ORIGIN = 'https://generativelanguage.googleapis.com';

export async function createGenkitRuntime(endpoint: GeminiEndpoint, env: NodeJS.ProcessEnv = {}): Promise<GenkitRuntime> {
  const modules = await loadGenkit();
  routeGeminiRequests(endpoint.baseUrl ?? GEMINI_ORIGIN, env, [endpoint.apiKey]);
  const plugin = modules.google.googleAI({
    apiKey: endpoint.apiKey,
    ...(endpoint.baseUrl ? { baseUrl: endpoint.baseUrl } : {}),
    ...(endpoint.apiVersion ? { apiVersion: endpoint.apiVersion } : {}),
  });
  return { ai: modules.genkit.genkit({ plugins: [plugin] }), modules };
}

/** Origin → the fetch its requests take; read by the one router on the global fetch. */
const geminiRoutes = new Map<string, typeof fetch>();
/** The global fetch before the router was installed (what every other request gets). */
let unrouted: typeof fetch | undefined;

/**
 * Genkit's Google plugin calls the global fetch and takes no fetch of its own, so this is the one
 * place Keen replaces it: only when a proxy or record mode needs Keen's fetch, and only for
 * requests under the Gemini endpoint's origin; every other caller of the global fetch gets the
 * original one. Without a proxy and record mode nothing changes.
 */
function routeGeminiRequests(origin: string, env: NodeJS.ProcessEnv, keys: readonly string[]): void {
  const direct = proxyConfigured(env) ? sdkFetch(env, MODEL_API_TIMEOUTS, { web: true }) : undefined;
  const original = unrouted ?? globalThis.fetch;
  const send = recordingFetch(env, 'genkit', direct ?? original, keys) ?? direct;
  if (!send) return;
  geminiRoutes.set(origin, send);
  if (unrouted) return;
  unrouted = original;
  globalThis.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    for (const [prefix, fetch] of geminiRoutes) if (url.startsWith(prefix)) return fetch(input, init);
    return original(input, init);
  };
}
