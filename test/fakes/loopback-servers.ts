/**
 * Loopback HTTP servers for one test file: `serve(handler)` starts one on 127.0.0.1 and gives
 * its URL; after every test each is closed, its open connections too. `servers` lists the ones
 * still open, newest last (a test may close one itself to make a connection fail).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export function useLoopbackServers(): { serve(handler: http.RequestListener): Promise<string>; readonly servers: http.Server[] } {
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return {
    servers,
    async serve(handler) {
      const server = http.createServer(handler);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
  };
}
