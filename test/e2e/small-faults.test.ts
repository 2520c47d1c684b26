/** Small faults, each with a clear line: a config saved with a BOM, a read-only KEEN_HOME. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_TURNS_MESSAGE } from '../../src/cli/headless/result.js';
import { errorLines, useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

const mounted: string[] = [];
afterAll(() => {
  for (const dir of mounted) {
    execFileSync('umount', [dir], { stdio: 'ignore' });
    fs.rmdirSync(dir);
  }
});
function readOnlyMount(): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-ro-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=16k', 'tmpfs', dir], { stdio: 'ignore' });
    mounted.push(dir);
    return dir;
  } catch {
    fs.rmdirSync(dir);
    return undefined;
  }
}
const ro = readOnlyMount();

/** A loopback server answering every request with `handler`; closed after the file. */
async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const servers: http.Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

describe('small faults', () => {
  it('a config file that starts with a UTF-8 byte-order mark is read', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), `\uFEFF${JSON.stringify({ maxTurns: 1 })}`);
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'read_file', args: { path: 'x' } } }] });
    const r = await rig.keen(ws, ['run', 'hi']);
    // maxTurns 1 from the BOM file took effect: the loop stops after one request.
    expect(r.code).toBe(1);
    expect(errorLines(r.stderr)).toEqual([`keen: ${MAX_TURNS_MESSAGE}`]);
  });

  it.runIf(ro !== undefined)('a KEEN_HOME below a read-only folder is named as read-only, not as a missing folder', async () => {
    const ws = workspace();
    const r = await rig.keen(ws, ['run', 'hi'], { env: { KEEN_HOME: path.join(ro!, 'nested', '.keen') } });
    expect(r.code).toBe(1);
    const lines = errorLines(r.stderr);
    expect(lines).toEqual([`keen: cannot write Keen's state: ${ro} is on a read-only file system; set KEEN_HOME to a writable folder (now ${path.join(ro!, 'nested', '.keen')})`]);
  });

  it('an HTML page on HTTP 200 is named as such, not reported as a closed connection', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Hotel Wi-Fi login</title></head><body>Sign in</body></html>');
    });
    for (const [provider, env] of [
      ['anthropic', { ANTHROPIC_BASE_URL: url }],
      ['openai', { OPENAI_API_KEY: 'k-html', OPENAI_BASE_URL: `${url}/v1` }],
    ] as const) {
      const r = await rig.keen(workspace(), ['run', '--provider', provider, 'hi'], { env });
      expect(r.code).toBe(1);
      const lines = errorLines(r.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('answered HTTP 200 with an HTML page titled "Hotel Wi-Fi login"');
    }
  });

  it('an Anthropic stream without its opening message_start is an error, not an empty success', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const ev = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'partial' } });
      ev('content_block_stop', { index: 0 });
      ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } });
      ev('message_stop', {});
      res.end();
    });
    const r = await rig.keen(workspace(), ['run', '--format', 'json', 'hi'], { env: { ANTHROPIC_BASE_URL: url } });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).is_error).toBe(true);
    expect(errorLines(r.stderr)).toHaveLength(1);
  });
});
