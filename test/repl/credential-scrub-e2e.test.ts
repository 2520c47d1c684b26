/**
 * Credentials never reach the REPL's screen: an MCP server that echoes its header in its 401,
 * and the model's error that echoes a config value, show `[REDACTED]` in their place. Needs
 * `npm run build` first.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTmuxRig } from './tmux.js';

const rig = useTmuxRig();
let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

describe('the REPL screen shows no credential', () => {
  it('an MCP header echoed by the server and then by the model error is [REDACTED]', async () => {
    const header = 'hdr-Repl-Secret-4c21d9';
    server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`unknown key ${req.headers['x-api-key']}`);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    fs.writeFileSync(path.join(rig.ws.home, 'config.json'), JSON.stringify({ mcpServers: { remote: { type: 'http', url, headers: { 'X-Api-Key': header } } } }));
    rig.fake.enqueue({ error: { status: 401, type: 'authentication_error', message: `a proxy saw ${header}` } });
    const t = rig.start();
    await t.waitFor('Type a message');
    const warned = await t.waitFor(/MCP server "?remote"? failed to start/);
    t.type('hi');
    const screen = await t.waitFor('a proxy saw');
    expect(warned + screen).toContain('[REDACTED]');
    expect(warned + screen).not.toContain(header);
  });
});
