/**
 * The MCP HTTP transports take their proxy from the environment they are given (HTTP_PROXY /
 * HTTPS_PROXY, NO_PROXY), not from whatever this process's global fetch happens to be: the SDK
 * client against server-everything on a loopback port, through a loopback CONNECT proxy.
 */
import http from 'node:http';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransport } from '../../../src/tools/mcp/transport.js';
import type { ServerSpec } from '../../../src/tools/mcp/servers.js';
import { startEverythingHttp } from '../../e2e/mcp-fixtures.js';

let proxy: http.Server;
let proxyUrl = '';
const tunnels: string[] = [];

beforeAll(async () => {
  proxy = http.createServer();
  proxy.on('connect', (req, socket, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
});

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
        const mine = () => tunnels.filter((t) => t === target);
        expect(await listTools(spec, { HTTP_PROXY: proxyUrl, NO_PROXY: target })).toContain('echo');
        expect(await listTools(spec, {})).toContain('echo');
        expect(mine()).toEqual([]);

        expect(await listTools(spec, { HTTP_PROXY: proxyUrl })).toContain('echo');
        expect(mine().length).toBeGreaterThan(0);
      } finally {
        await server.stop();
      }
    });
  }
});
