import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** A loopback HTTP proxy that tunnels CONNECT requests and records each tunnel's target. */
export interface ConnectProxy {
  /** e.g. http://127.0.0.1:PORT (https:// with `tls`) */
  url: string;
  /** `host:port` of every CONNECT, in order (tests may reset it with `length = 0`). */
  tunnels: string[];
  /** The Proxy-Authorization header of every CONNECT, in order (undefined when none was sent). */
  authorizations: (string | undefined)[];
  /** How many client connections that sent a CONNECT are still open. */
  readonly open: number;
  close(): Promise<void>;
}

export interface ConnectProxyOptions {
  /**
   * 'tunnel' (default) connects and answers 200; 'never' accepts the CONNECT and never answers
   * (a proxy that hangs); 'drop' closes the connection without an answer; any other text is the
   * status line it refuses with, e.g. '407 Proxy Authentication Required'.
   */
  answer?: 'tunnel' | 'never' | 'drop' | string;
  /** Tunnels go to this host whatever the CONNECT names (targets like model.test or 127.0.0.9 reach 127.0.0.1). */
  upstreamHost?: string;
  /** Serve the proxy itself over TLS (an https:// proxy URL). */
  tls?: { key: string; cert: string };
}

/**
 * Starts the proxy on 127.0.0.1. Plain (non-CONNECT) requests get 502: every client under test
 * must tunnel. Used by the proxy tests of the providers, MCP transports, web_fetch, the Codex
 * sign-in and the tunnel itself.
 */
export async function startConnectProxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const clients = new Set<net.Socket>();
  const refuse = (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(502);
    res.end();
  };
  const server = options.tls ? https.createServer(options.tls, refuse) : http.createServer(refuse);
  server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    authorizations.push(req.headers['proxy-authorization']);
    clients.add(socket);
    socket.once('close', () => clients.delete(socket));
    socket.on('error', () => socket.destroy());
    // A client that goes closes its tunnel (the server is half-open by default).
    socket.once('end', () => socket.destroy());
    const answer = options.answer ?? 'tunnel';
    if (answer === 'never') {
      socket.resume(); // reads (and drops) whatever comes, so it sees the client leave
      return;
    }
    if (answer === 'drop') {
      socket.destroy();
      return;
    }
    if (answer !== 'tunnel') {
      socket.end(`HTTP/1.1 ${answer}\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const target = req.url ?? '';
    const colon = target.lastIndexOf(':');
    const host = options.upstreamHost ?? target.slice(0, colon).replace(/^\[|\]$/g, '');
    const upstream = net.connect(Number(target.slice(colon + 1)), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    socket.once('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    tunnels,
    authorizations,
    get open() {
      return clients.size;
    },
    close: async () => {
      for (const socket of clients) socket.destroy();
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
