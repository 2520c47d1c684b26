import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** A loopback HTTP proxy that tunnels CONNECT requests and records each tunnel's target. */
export interface ConnectProxy {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  /** `host:port` of every CONNECT, in order (tests may reset it with `length = 0`). */
  tunnels: string[];
  close(): Promise<void>;
}

/**
 * Starts the proxy on 127.0.0.1. Plain (non-CONNECT) requests get 502: every client under test
 * must tunnel. Used by the proxy tests of the providers, MCP transports and web_fetch.
 */
export async function startConnectProxy(): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const server = http.createServer((_req, res) => {
    res.writeHead(502);
    res.end();
  });
  server.on('connect', (req, socket, head) => {
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    tunnels,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * One proxy for a test file: started before its tests, closed after them. `url` and `tunnels`
 * read the live proxy (tests may reset `tunnels` with `length = 0`).
 */
export function useConnectProxy(): { readonly url: string; readonly tunnels: string[] } {
  let proxy: ConnectProxy | undefined;
  beforeAll(async () => {
    proxy = await startConnectProxy();
  });
  afterAll(() => proxy?.close());
  const live = () => {
    if (!proxy) throw new Error('the proxy starts in beforeAll');
    return proxy;
  };
  return {
    get url() {
      return live().url;
    },
    get tunnels() {
      return live().tunnels;
    },
  };
}
