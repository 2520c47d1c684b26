import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it, vi } from 'vitest';
import { createTransport } from '../../../src/tools/mcp/transport.js';
import type { ServerSpec } from '../../../src/tools/mcp/servers.js';
import { startEverythingHttp } from '../../e2e/mcp-fixtures.js';
import { useConnectProxy } from '../../fakes/connect-proxy.js';

const proxy = useConnectProxy();

async function listTools(spec: ServerSpec, env: NodeJS.ProcessEnv): Promise<string[]> {
  const client = new Client({ name: 'keen-test', version: '0' });
  await client.connect(await createTransport(spec, env));
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe('createTransport and proxies', () => {
  for (const [mode, type, path] of [
    ['streamableHttp', 'http', '/mcp'],
    ['sse', 'sse', '/sse'],
  ] as const) {
    it(`${type}: not when NO_PROXY names the server, not without a proxy; through the proxy the env names`, async () => {
      const server = await startEverythingHttp(mode);
      try {
        const target = `127.0.0.1:${server.port}`;
        const spec = { name: 'remote', file: 'test', transport: type, url: `http://${target}${path}`, headers: {} } as ServerSpec;
        // Only this server's tunnels count (a closed client of an earlier case may still retry).
        const mine = () => proxy.tunnels.filter((t) => t === target);
        expect(await listTools(spec, { HTTP_PROXY: proxy.url, NO_PROXY: target })).toContain('echo');
        expect(await listTools(spec, {})).toContain('echo');
        expect(mine()).toEqual([]);

        expect(await listTools(spec, { HTTP_PROXY: proxy.url })).toContain('echo');
        expect(mine().length).toBeGreaterThan(0);
      } finally {
        await server.stop();
      }
    });
  }

  it('a closed client whose server then died sends no more CONNECTs (no reconnect storm behind a proxy)', async () => {
    const server = await startEverythingHttp('streamableHttp');
    const target = `127.0.0.1:${server.port}`;
    const spec = { name: 'remote', file: 'test', transport: 'http', url: `http://${target}/mcp`, headers: {} } as ServerSpec;
    const client = new Client({ name: 'keen-test', version: '0' });
    await client.connect(await createTransport(spec, { HTTP_PROXY: proxy.url }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    // Let the client open its standing GET stream for server notifications.
    await vi.waitFor(() => expect(proxy.tunnels.filter((t) => t === target).length).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    await client.close();
    await server.stop();
    const afterClose = proxy.tunnels.filter((t) => t === target).length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // undici's ProxyAgent re-sent the CONNECT thousands of times a second here (nodejs/undici#3897).
    expect(proxy.tunnels.filter((t) => t === target).length - afterClose).toBeLessThanOrEqual(2);
  });
});
