/**
 * HTTP(S) proxies, from HTTPS_PROXY / HTTP_PROXY (or their lower-case forms), NO_PROXY honoured.
 * - The SDKs that take a `fetch` (Anthropic, OpenAI, Codex), MCP's HTTP transports, web_fetch and
 *   `keen login codex` speak through `sdkFetch` (http-fetch.ts): node:http through Keen's own
 *   CONNECT tunnel ({@link tunnelAgent}, connect-tunnel.ts).
 * - Bedrock's SDK uses Node's http stack: it gets {@link proxiedRequestHandler}, the same agents.
 * - Genkit's plugin calls the global fetch: its requests to Gemini are routed to `sdkFetch`
 *   (providers/genkit-runtime.ts), nobody else's.
 * Nothing is loaded without a proxy variable.
 */
import type { Agent } from 'node:http';
import { CONNECT_LIMIT_MS } from './connect-limit.js';
import { tunnelSignalScope } from './tunnel-signal.js';

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

/**
 * The agent for targets of `scheme` through `proxy`: one per pair, so its tunnels are reused.
 * `connectTimeoutMs` bounds a tunnel's CONNECT and the TLS handshake inside it (by default the
 * model APIs' connect limit). http-fetch.ts times its requests itself; for the SDKs on Node's http
 * stack (Bedrock) this is the limit: their own connect timer ends when the tunnel hands over its
 * socket, before the handshake inside it, and does not close the socket to the proxy.
 */
function agentFor(proxy: string, scheme: 'http:' | 'https:', connectTimeoutMs = CONNECT_LIMIT_MS): Promise<Agent> {
  const key = `${scheme} ${connectTimeoutMs} ${proxy}`;
  let agent = tunnels.get(key);
  if (!agent) {
    // Loaded with the first proxied request; a failed load is not remembered.
    agent = import('./connect-tunnel.js').then(
      ({ ConnectTunnelAgent }) => new ConnectTunnelAgent(proxy, { target: scheme, connectTimeoutMs }),
      (err: unknown) => {
        tunnels.delete(key);
        throw err;
      },
    );
    tunnels.set(key, agent);
  }
  return agent;
}

/**
 * The agent that tunnels a request for `url` through the proxy `env` names (CONNECT, for http
 * and https targets alike), or undefined when no proxy applies (none set, or NO_PROXY names the
 * host). One agent per proxy URL and target scheme, so its tunnels are reused per target. A proxy
 * that refuses or drops the tunnel fails that request once (undici's ProxyAgent instead retried
 * such a CONNECT in a tight loop until the request's timeout: nodejs/undici#3897).
 */
export function tunnelAgent(url: string, env: NodeJS.ProcessEnv): Promise<Agent> | undefined {
  const proxy = proxyFor(url, env);
  if (!proxy) return undefined;
  return agentFor(proxy, url.startsWith('https:') ? 'https:' : 'http:');
}

/**
 * For SDKs on Node's http stack (Bedrock): an HTTP/1.1 request handler that tunnels through the
 * proxy `env` names for `endpoint` (CONNECT, connect-tunnel.ts), or undefined without one. Each
 * request runs in its abort signal's tunnel scope, so an abort also ends a CONNECT still waiting.
 */
export async function proxiedRequestHandler(env: NodeJS.ProcessEnv, endpoint: string, limits: { connectTimeoutMs?: number; bodyTimeoutMs?: number } = {}): Promise<unknown> {
  const proxy = proxyFor(endpoint, env);
  if (!proxy) return undefined;
  const connect = limits.connectTimeoutMs ?? CONNECT_LIMIT_MS;
  const [httpAgent, httpsAgent, { NodeHttpHandler }] = await Promise.all([
    agentFor(proxy, 'http:', connect),
    agentFor(proxy, 'https:', connect),
    import('@smithy/node-http-handler'),
  ]);
  // No `connectionTimeout`: the agent times the CONNECT and the handshake (and smithy's timer would
  // outlive an aborted request by up to its limit).
  const handler = new NodeHttpHandler({ httpAgent, httpsAgent, socketTimeout: limits.bodyTimeoutMs });
  const handle = handler.handle.bind(handler);
  handler.handle = (request, options) => {
    const signal = options?.abortSignal;
    // The SDK's signal may be its own AbortSignal-like object; only a real one can be listened to.
    return signal instanceof AbortSignal ? tunnelSignalScope.run(signal, () => handle(request, options)) : handle(request, options);
  };
  return handler;
}
