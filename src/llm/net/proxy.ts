/**
 * HTTP(S) proxies for the providers that speak through `fetch` (Anthropic, OpenAI, Codex, Genkit):
 * when HTTPS_PROXY / HTTP_PROXY (or their lower-case forms) are set, `globalThis.fetch` becomes
 * undici's fetch through an EnvHttpProxyAgent, honouring NO_PROXY, before any SDK client is built.
 * (undici 7's dispatcher cannot be handed to Node 20's built-in fetch, so the fetch is swapped
 * as a whole.) Nothing is loaded without a proxy variable. Bedrock's SDK uses Node's http stack
 * and is not covered (see docs/cli.md).
 */
const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

export function proxyConfigured(env: NodeJS.ProcessEnv): boolean {
  return PROXY_VARS.some((name) => !!env[name]?.trim());
}

let installed = false;

/** Routes this process's fetch through the proxy `env` names (once; no-op without one). */
export async function installProxyFromEnv(env: NodeJS.ProcessEnv): Promise<void> {
  if (installed || !proxyConfigured(env)) return;
  // undici is CommonJS: bundled, its exports sit on `default`.
  const loaded = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
  const undici = loaded.default ?? loaded;
  const pick = (...names: string[]) => names.map((n) => env[n]?.trim()).find((v) => !!v);
  const agent = new undici.EnvHttpProxyAgent({
    httpProxy: pick('HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy'),
    httpsProxy: pick('HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'),
    noProxy: pick('NO_PROXY', 'no_proxy'),
  });
  const proxied = (input: unknown, init?: Record<string, unknown>) => undici.fetch(input as string, { ...(init as object), dispatcher: agent } as never);
  globalThis.fetch = proxied as unknown as typeof fetch;
  installed = true;
}
