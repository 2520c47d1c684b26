import { describe, expect, it } from 'vitest';
import { errorLines, toolResults, useCliRig } from './cli-fixtures.js';
import { startEverythingHttp, writeUserConfig } from './mcp-fixtures.js';
import { useConnectProxy } from '../fakes/connect-proxy.js';

const { rig, workspace } = useCliRig();

const proxy = useConnectProxy();

const cases = [
  { mode: 'streamableHttp' as const, type: 'http', path: '/mcp' },
  { mode: 'sse' as const, type: 'sse', path: '/sse' },
];

describe('MCP HTTP transports and proxies', () => {
  for (const c of cases) {
    it(`${c.type}: through HTTP_PROXY, and directly when NO_PROXY names the server`, async () => {
      const server = await startEverythingHttp(c.mode);
      try {
        const target = `127.0.0.1:${server.port}`;
        const ws = workspace();
        writeUserConfig(ws.home, { mcpServers: { remote: { type: c.type, url: `http://${target}${c.path}` } } });
        const run = async (noProxy: string) => {
          const from = rig.fake.requests.length;
          rig.fake.enqueue({ steps: [{ toolCall: { name: 'mcp__remote__get-sum', args: { a: 2, b: 40 } } }] }, { steps: [{ text: 'sum' }] });
          const r = await rig.keen(ws, ['run', '--yolo', 'add'], { env: { HTTP_PROXY: proxy.url, http_proxy: proxy.url, NO_PROXY: noProxy, no_proxy: noProxy } });
          expect(errorLines(r.stderr)).toEqual([]);
          expect(r.code).toBe(0);
          const [result] = toolResults(rig.fake.requests[from + 1]);
          expect(result).toMatchObject({ isError: false });
          expect(result.text).toContain('42');
        };
        proxy.tunnels.length = 0;
        await run('');
        expect(proxy.tunnels.filter((t) => t === target).length).toBeGreaterThan(0);

        proxy.tunnels.length = 0;
        await run(target);
        expect(proxy.tunnels.filter((t) => t === target)).toEqual([]);
        // The provider (not exempted) still went through the proxy.
        expect(proxy.tunnels.length).toBeGreaterThan(0);
      } finally {
        await server.stop();
      }
    });
  }
});
