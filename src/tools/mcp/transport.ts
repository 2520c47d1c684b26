import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { sdkFetch } from '../../net/http-fetch.js';
import { isCredentialName } from '../../security/credential-names.js';
import type { ServerSpec } from './servers.js';
import { ProcessGroupStdioTransport } from './stdio-transport.js';

/**
 * The environment of a stdio server: the user's, without any credential (`isCredentialName`: a
 * server has no business with Keen's keys, and a tool result could carry them to the model), plus
 * the entry's `env`, which is where a server of the user's own config names what it needs.
 */
export function serverEnv(base: NodeJS.ProcessEnv, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(base).filter(([name]) => !isCredentialName(name)));
  return { ...env, ...extra };
}

/**
 * Build the transport for a server. The SDK's HTTP transports load only when used. Streamable
 * HTTP and SSE servers are reached with the providers' fetch (node:http, through the proxy `env`
 * names — HTTPS_PROXY / HTTP_PROXY, NO_PROXY honoured — as web_fetch and the providers are).
 */
export async function createTransport(spec: ServerSpec, env: NodeJS.ProcessEnv): Promise<Transport> {
  if (spec.transport === 'stdio') {
    return new ProcessGroupStdioTransport({ command: spec.command, args: spec.args, cwd: spec.cwd, env: serverEnv(env, spec.env) });
  }
  const url = new URL(spec.url);
  const requestInit: RequestInit = { headers: spec.headers };
  // No time limits: the event streams of an MCP server may sit idle for as long as it has nothing to say.
  // Node's own Response objects: MCP's SDK is not bundled and checks `instanceof Response`.
  const base = sdkFetch(env, {}, { web: true });
  if (spec.transport === 'http') {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return new StreamableHTTPClientTransport(url, { requestInit, fetch: base });
  }
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
  const headers = spec.headers;
  return new SSEClientTransport(url, {
    requestInit,
    fetch: base,
    // The event stream's GET carries the headers too (an Authorization header is the usual case).
    eventSourceInit: { fetch: (input, init) => base(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
  });
}
