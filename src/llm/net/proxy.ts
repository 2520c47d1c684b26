/**
 * HTTP(S) proxies, from HTTPS_PROXY / HTTP_PROXY (or their lower-case forms), NO_PROXY honoured.
 * - The SDKs that take a `fetch` (Anthropic, OpenAI, Codex) and MCP's HTTP transports speak
 *   through `sdkFetch` (http-fetch.ts): node:http tunnelling through the proxy with
 *   https-proxy-agent ({@link tunnelAgent}).
 * - Bedrock's SDK uses Node's http stack: it gets {@link proxiedRequestHandler}.
 * - Genkit's plugin calls the global fetch: `installProxyFromEnv` (http-fetch.ts) makes that the
 *   same tunnelling fetch.
 * Nothing is loaded without a proxy variable.
 */
import type { Agent } from 'node:http';

const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

export function proxyConfigured(env: NodeJS.ProcessEnv): boolean {
  return PROXY_VARS.some((name) => !!env[name]?.trim());
}

/**
 * Whether NO_PROXY exempts `url`: entries separated by commas or spaces; `*` exempts everything;
 * `example.com` and `.example.com` match the host and its subdomains; `host:port` also needs
 * the port to match. Pure.
 */
export function bypassesProxy(url: string, noProxy: string | undefined): boolean {
  if (!noProxy?.trim()) return false;
  let host: string;
  let port: string;
  try {
    const u = new URL(url);
    host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    port = u.port || (u.protocol === 'https:' ? '443' : '80');
  } catch {
    return false;
  }
  return noProxy
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((raw) => {
      const entry = raw.toLowerCase();
      if (entry === '*') return true;
      const m = /^(.*?)(?::(\d+))?$/.exec(entry.replace(/^\[|\]$/g, ''));
      const name = (m?.[1] ?? entry).replace(/^\*?\./, '');
      if (m?.[2] && m[2] !== port) return false;
      return host === name || host.endsWith(`.${name}`);
    });
}

/** The proxy URL `env` gives for `url` (HTTPS_PROXY for https, HTTP_PROXY for http), NO_PROXY honoured. */
export function proxyFor(url: string, env: NodeJS.ProcessEnv): string | undefined {
  const pick = (...names: string[]) => names.map((n) => env[n]?.trim()).find((v) => !!v);
  const proxy = url.startsWith('https:') ? pick('HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy') : pick('HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy');
  if (!proxy || bypassesProxy(url, pick('NO_PROXY', 'no_proxy'))) return undefined;
  return proxy;
}

const tunnels = new Map<string, Promise<Agent>>();

async function tunnelTo(proxy: string): Promise<Agent> {
  const agentModule = await import('https-proxy-agent');
  // CommonJS: bundled, its exports may sit on `default`.
  const { HttpsProxyAgent } = ((agentModule as unknown as { default?: typeof agentModule }).default ?? agentModule) as typeof agentModule;
  return new HttpsProxyAgent(proxy, { keepAlive: true });
}

/**
 * The agent that tunnels a request for `url` through the proxy `env` names (CONNECT, for http
 * and https targets alike), or undefined when no proxy applies (none set, or NO_PROXY names the
 * host). One agent per proxy URL, so its connections are reused. A proxy that drops the tunnel
 * fails that request (undici's ProxyAgent instead retried such a CONNECT in a tight loop until
 * the request's timeout: nodejs/undici#3897).
 */
export function tunnelAgent(url: string, env: NodeJS.ProcessEnv): Promise<Agent> | undefined {
  const proxy = proxyFor(url, env);
  if (!proxy) return undefined;
  let agent = tunnels.get(proxy);
  if (!agent) {
    // A failed load is not remembered: the next request tries again.
    agent = tunnelTo(proxy).catch((err: unknown) => {
      tunnels.delete(proxy);
      throw err;
    });
    tunnels.set(proxy, agent);
  }
  return agent;
}

/**
 * For SDKs on Node's http stack (Bedrock): an HTTP/1.1 request handler that tunnels through the
 * proxy `env` names for `endpoint` (CONNECT, https-proxy-agent), or undefined without one.
 */
export async function proxiedRequestHandler(env: NodeJS.ProcessEnv, endpoint: string): Promise<unknown> {
  const proxy = proxyFor(endpoint, env);
  if (!proxy) return undefined;
  const [agent, { NodeHttpHandler }] = await Promise.all([tunnelTo(proxy), import('@smithy/node-http-handler')]);
  return new NodeHttpHandler({ httpAgent: agent, httpsAgent: agent });
}
