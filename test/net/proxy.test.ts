import { describe, expect, it, vi } from 'vitest';
import { bypassesProxy, proxiedRequestHandler, proxyFor } from '../../src/net/proxy.js';
import { startConnectProxy } from '../fakes/connect-proxy.js';

describe('NO_PROXY', () => {
  it('matches hosts, subdomains, ports and *', () => {
    expect(bypassesProxy('https://api.example.com/v1', 'example.com')).toBe(true);
    expect(bypassesProxy('https://api.example.com/v1', '.example.com')).toBe(true);
    expect(bypassesProxy('https://notexample.com/v1', 'example.com')).toBe(false);
    expect(bypassesProxy('http://127.0.0.1:8080/', '127.0.0.1:8080')).toBe(true);
    expect(bypassesProxy('http://127.0.0.1:9090/', '127.0.0.1:8080')).toBe(false);
    expect(bypassesProxy('https://anything.io', '*')).toBe(true);
    expect(bypassesProxy('https://anything.io', ' , ')).toBe(false);
  });

  it('picks HTTPS_PROXY for https and HTTP_PROXY for http, unless exempt', () => {
    const env = { HTTPS_PROXY: 'http://secure:1', HTTP_PROXY: 'http://plain:2', NO_PROXY: 'internal.corp' };
    expect(proxyFor('https://bedrock-runtime.us-east-1.amazonaws.com', env)).toBe('http://secure:1');
    expect(proxyFor('http://localhost:9', env)).toBe('http://plain:2');
    expect(proxyFor('https://api.internal.corp', env)).toBeUndefined();
    expect(proxyFor('https://x.io', {})).toBeUndefined();
  });
});

const ENDPOINT = 'https://bedrock-runtime.us-east-1.amazonaws.com';

/**
 * One Converse request from the real Bedrock client through `proxiedRequestHandler` for `env`;
 * resolves with the error it failed with.
 */
async function converseThrough(
  env: NodeJS.ProcessEnv,
  opts: { maxAttempts?: number; limits?: { connectTimeoutMs?: number; bodyTimeoutMs?: number }; signal?: AbortSignal } = {},
): Promise<Error> {
  const { BedrockRuntimeClient, ConverseCommand } = await import('@aws-sdk/client-bedrock-runtime');
  const client = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: ENDPOINT,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: opts.maxAttempts ?? 1,
    requestHandler: (await proxiedRequestHandler(env, ENDPOINT, opts.limits)) as never,
  });
  const command = new ConverseCommand({ modelId: 'm', messages: [{ role: 'user', content: [{ text: 'hi' }] }] });
  return (await client.send(command, { abortSignal: opts.signal }).catch((e: unknown) => e)) as Error;
}

describe('proxiedRequestHandler (Bedrock)', () => {
  it('tunnels through the proxy, and an abort ends a CONNECT the proxy never answers', async () => {
    const silent = await startConnectProxy({ answer: 'never' });
    try {
      const env = { HTTPS_PROXY: silent.url };
      const controller = new AbortController();
      const sent = converseThrough(env, { signal: controller.signal });
      await vi.waitFor(() => expect(silent.tunnels).toEqual(['bedrock-runtime.us-east-1.amazonaws.com:443']), { timeout: 10_000 });
      expect(silent.open).toBe(1);
      controller.abort();
      expect((await sent).name).toBe('AbortError');
      await vi.waitFor(() => expect(silent.open).toBe(0), { timeout: 5000 });
      expect(await proxiedRequestHandler({ ...env, NO_PROXY: '.amazonaws.com' }, ENDPOINT)).toBeUndefined();
    } finally {
      await silent.close();
    }
  });

  it('a proxy that never answers fails the request at the tunnel’s connect limit, and the SDK retries it as the timeout it is', async () => {
    const silent = await startConnectProxy({ answer: 'never' });
    try {
      const err = await converseThrough({ HTTPS_PROXY: silent.url }, { limits: { connectTimeoutMs: 300, bodyTimeoutMs: 60_000 } });
      expect(err.message).toMatch(/^the tunnel to bedrock-runtime\.us-east-1\.amazonaws\.com:443 through proxy http:\/\/127\.0\.0\.1:\d+ did not connect within 300 ms$/);
      await vi.waitFor(() => expect(silent.open).toBe(0), { timeout: 5000 });
      // The SDK retries it as the timeout it is (maxAttempts 2: two CONNECTs).
      expect(silent.tunnels).toHaveLength(1);
      await converseThrough({ HTTPS_PROXY: silent.url }, { maxAttempts: 2, limits: { connectTimeoutMs: 200, bodyTimeoutMs: 60_000 } });
      expect(silent.tunnels).toHaveLength(3);
    } finally {
      await silent.close();
    }
  });

  it('the SDK retries a busy proxy’s 503 refusal, not a 407', async () => {
    const busy = await startConnectProxy({ answer: '503 Service Unavailable' });
    const refusing = await startConnectProxy({ answer: '407 Proxy Authentication Required' });
    try {
      expect((await converseThrough({ HTTPS_PROXY: busy.url }, { maxAttempts: 2 })).message).toMatch(
        /refused the tunnel to bedrock-runtime\.us-east-1\.amazonaws\.com:443: 503 Service Unavailable$/,
      );
      expect(busy.tunnels).toHaveLength(2);
      expect((await converseThrough({ HTTPS_PROXY: refusing.url }, { maxAttempts: 2 })).message).toMatch(/: 407 Proxy Authentication Required$/);
      expect(refusing.tunnels).toHaveLength(1);
    } finally {
      await busy.close();
      await refusing.close();
    }
  });
});
