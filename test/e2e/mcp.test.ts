/**
 * MCP end to end: `keen run` (the real bundle) against the real reference servers
 * (server-everything over stdio and Streamable HTTP, server-filesystem over stdio), driven by the
 * loopback Anthropic fake.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, FAKE_KEY, toolResults, useCliRig } from './cli-fixtures.js';
import { cleanEnv, KEEN_BIN } from './harness.js';
import { alive, everything, everythingWithPid, filesystem, pidsIn, startEverythingHttp, waitFor, writeUserConfig } from './mcp-fixtures.js';

const { rig, workspace } = useCliRig();

interface WireTool {
  name: string;
  description: string;
  input_schema: Record<string, any>;
}

const toolsOf = (index: number): WireTool[] => rig.fake.requests[index].body.tools as WireTool[];

describe('keen run with MCP servers', () => {
  it('offers the servers tools under mcp__ names with their schemas, and a result reaches the next request', async () => {
    const ws = workspace({ 'notes.txt': 'hello from the workspace\n' });
    writeUserConfig(ws.home, { mcpServers: { everything: everything(), fs: filesystem(ws.cwd) } });
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      {
        steps: [
          { toolCall: { name: 'mcp__everything__echo', args: { message: 'round trip' } } },
          { toolCall: { name: 'mcp__everything__get-tiny-image', args: {} } },
          { toolCall: { name: 'mcp__everything__get-resource-links', args: { count: 1 } } },
          { toolCall: { name: 'mcp__fs__read_text_file', args: { path: path.join(ws.cwd, 'notes.txt') } } },
          { toolCall: { name: 'mcp__fs__read_text_file', args: { path: path.join(ws.cwd, 'missing.txt') } } },
        ],
      },
      { steps: [{ text: 'done' }] },
    );

    const r = await rig.keen(ws, ['run', 'use the servers']);

    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('done\n');
    const tools = toolsOf(from);
    const echo = tools.find((t) => t.name === 'mcp__everything__echo');
    expect(echo?.description).toContain('Echoes back the input string');
    expect(echo?.input_schema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read_file', 'mcp__fs__read_text_file', 'mcp__fs__write_file']));
    for (const t of tools) expect(t.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);

    const results = toolResults(rig.fake.requests[from + 1]);
    expect(results).toHaveLength(5);
    expect(results[0]).toEqual({ text: 'Echo: round trip', isError: false });
    // The text names the image with a placeholder line (all that providers without images in tool results get).
    expect(results[1].text).toMatch(/^Here's the image you requested:\n\[image: image\/png, [\d.]+ KB\]\nThe image above is the MCP logo\.$/);
    expect(results[2].text).toMatch(/\[resource link: .+ <demo:\/\/resource\/\S+>/);
    expect(results[3]).toEqual({ text: 'hello from the workspace\n', isError: false });
    expect(results[4].isError).toBe(true);
    expect(results[4].text).toMatch(/ENOENT|no such file/i);
  });

  it("get-tiny-image's image reaches the Anthropic request as an image block, also after --continue", async () => {
    const ws = workspace();
    writeUserConfig(ws.home, { mcpServers: { everything: everything() } });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'mcp__everything__get-tiny-image', args: {} } }] }, { steps: [{ text: 'a logo' }] });

    const r = await rig.keen(ws, ['run', 'show me the image']);
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    const imageBlocks = (req: { body: any }) =>
      (req.body.messages as any[])
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((b: any) => b.type === 'tool_result')
        .flatMap((b: any) => (Array.isArray(b.content) ? b.content : []))
        .filter((c: any) => c.type === 'image');
    const sent = imageBlocks(rig.fake.requests[from + 1]);
    expect(sent).toHaveLength(1);
    expect(sent[0].source).toMatchObject({ type: 'base64', media_type: 'image/png' });
    // The fake checked the bytes are a PNG; the server's logo is a few KB of base64.
    expect(sent[0].source.data.length).toBeGreaterThan(1000);

    // The transcript keeps the image, so the next run's request carries the same block.
    rig.fake.enqueue({ steps: [{ text: 'still a logo' }] });
    const again = await rig.keen(ws, ['run', '--continue', 'and now?']);
    expect(again.code).toBe(0);
    expect(imageBlocks(rig.fake.requests.at(-1)!)).toEqual(sent);
  });

  it('denies a mutating MCP tool headless without an allow rule; mcp__server__tool and mcp__server allow it', async () => {
    const ws = workspace();
    writeUserConfig(ws.home, { mcpServers: { fs: filesystem(ws.cwd) } });
    const write = (name: string) => ({
      steps: [{ toolCall: { name: 'mcp__fs__write_file', args: { path: path.join(ws.cwd, name), content: 'x' } } }],
    });

    let from = rig.fake.requests.length;
    rig.fake.enqueue(write('denied.txt'), { steps: [{ text: 'not allowed' }] });
    let r = await rig.keen(ws, ['run', 'write it']);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(ws.cwd, 'denied.txt'))).toBe(false);
    const [denied] = toolResults(rig.fake.requests[from + 1]);
    expect(denied.isError).toBe(true);
    expect(denied.text).toContain('Permission denied');
    expect(denied.text).toContain('"mcp__fs__write_file"');

    for (const rule of ['mcp__fs__write_file', 'mcp__fs']) {
      writeUserConfig(ws.home, { mcpServers: { fs: filesystem(ws.cwd) }, permissions: { allow: [rule] } });
      from = rig.fake.requests.length;
      rig.fake.enqueue(write(`${rule}.txt`), { steps: [{ text: 'written' }] });
      r = await rig.keen(ws, ['run', 'write it']);
      expect(r.code).toBe(0);
      expect(toolResults(rig.fake.requests[from + 1])[0].isError).toBe(false);
      expect(fs.readFileSync(path.join(ws.cwd, `${rule}.txt`), 'utf8')).toBe('x');
    }
  });

  it('plan mode refuses a mutating MCP tool even with --yolo, and still runs a readOnlyHint one', async () => {
    const ws = workspace({ 'notes.txt': 'plan notes\n' });
    writeUserConfig(ws.home, { mcpServers: { fs: filesystem(ws.cwd) } });
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      {
        steps: [
          { toolCall: { name: 'mcp__fs__write_file', args: { path: path.join(ws.cwd, 'planned.txt'), content: 'x' } } },
          { toolCall: { name: 'mcp__fs__read_text_file', args: { path: path.join(ws.cwd, 'notes.txt') } } },
        ],
      },
      { steps: [{ text: 'planned' }] },
    );
    const r = await rig.keen(ws, ['run', '--mode', 'plan', '--yolo', 'plan it']);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(ws.cwd, 'planned.txt'))).toBe(false);
    const [write, read] = toolResults(rig.fake.requests[from + 1]);
    expect(write.isError).toBe(true);
    expect(write.text).toMatch(/plan mode/i);
    expect(read).toEqual({ text: 'plan notes\n', isError: false });
  });

  it('a server that fails to start is one warning line and the run goes on', async () => {
    const ws = workspace();
    writeUserConfig(ws.home, { mcpServers: { broken: { command: 'keen-no-such-mcp-server' }, everything: everything() } });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'fine' }] });
    const r = await rig.keen(ws, ['run', 'hi']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('fine\n');
    expect(errorLines(r.stderr)).toEqual(['keen: warning: MCP server "broken" failed to start: command not found: keen-no-such-mcp-server']);
    const names = toolsOf(from).map((t) => t.name);
    expect(names).toContain('mcp__everything__echo');
    expect(names.some((n) => n.startsWith('mcp__broken'))).toBe(false);
  });

  it('restarts a crashed stdio server once on its next call, then reports it down; no server outlives keen', async () => {
    const ws = workspace();
    const pidFile = path.join(ws.cwd, 'pids');
    // The model's bash kills the server: outside the sandbox, whose PID namespace would hide it.
    writeUserConfig(ws.home, { mcpServers: { ev: everythingWithPid(pidFile) }, sandbox: { mode: 'off' } });
    const killLast = `p=$(tail -n 1 pids); kill $p; while kill -0 $p 2>/dev/null; do sleep 0.05; done; sleep 0.3; echo killed`;
    const from = rig.fake.requests.length;
    rig.fake.enqueue(
      { steps: [{ toolCall: { name: 'bash', args: { command: killLast } } }] },
      { steps: [{ toolCall: { name: 'mcp__ev__echo', args: { message: 'after restart' } } }] },
      { steps: [{ toolCall: { name: 'bash', args: { command: killLast } } }] },
      { steps: [{ toolCall: { name: 'mcp__ev__echo', args: { message: 'after second crash' } } }] },
      { steps: [{ text: 'over' }] },
    );

    const r = await rig.keen(ws, ['run', '--yolo', 'crash it']);

    expect(r.code).toBe(0);
    const results = toolResults(rig.fake.requests[from + 4]);
    expect(results.map((x) => x.text)).toEqual([
      expect.stringMatching(/^killed\n/),
      'Echo: after restart',
      expect.stringMatching(/^killed\n/),
      expect.stringContaining('MCP server "ev" is not running'),
    ]);
    expect(results[3].text).toContain('not restarted again');
    const warnings = errorLines(r.stderr);
    expect(warnings).toEqual([
      'keen: warning: MCP server "ev" stopped (signal SIGTERM); it is restarted on its next call',
      'keen: warning: MCP server "ev" stopped (signal SIGTERM)',
    ]);
    const pids = pidsIn(pidFile);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it('leaves no server process behind after exit and after SIGINT mid-call', async () => {
    const ws = workspace();
    const pidFile = path.join(ws.cwd, 'pids');
    writeUserConfig(ws.home, { mcpServers: { ev: everythingWithPid(pidFile) } });

    rig.fake.enqueue({ steps: [{ text: 'quick' }] });
    const r = await rig.keen(ws, ['run', 'hi']);
    expect(r.code).toBe(0);
    const [first] = pidsIn(pidFile);
    expect(first).toBeGreaterThan(0);
    await waitFor(() => !alive(first), 15_000, 'the server of a finished run to be gone');

    const from = rig.fake.requests.length;
    // One reply only: the run is interrupted before it could ask for a second.
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'mcp__ev__trigger-long-running-operation', args: { duration: 60, steps: 60 } } }] });
    const child = spawn(process.execPath, [KEEN_BIN, 'run', 'long call'], {
      cwd: ws.cwd,
      env: cleanEnv({ KEEN_HOME: ws.home, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: rig.fake.url }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code, sig) => resolve(code ?? (sig as unknown as number))));
    await waitFor(() => pidsIn(pidFile).length === 2 && rig.fake.requests.length > from, 15_000, 'the long call to start');
    await new Promise((res) => setTimeout(res, 700));
    const second = pidsIn(pidFile)[1];
    expect(alive(second)).toBe(true);
    child.kill('SIGINT');
    const code = await exited;
    expect(errorLines(stderr)).toEqual(['keen: cancelled']);
    expect(code).toBe(130);
    await waitFor(() => !alive(second), 15_000, 'the server to be gone after SIGINT');
  });

  it('a call that exceeds mcp.toolTimeoutMs is cancelled and returns an error result', async () => {
    const ws = workspace();
    writeUserConfig(ws.home, { mcpServers: { ev: everything() }, mcp: { toolTimeoutMs: 800 } });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'mcp__ev__trigger-long-running-operation', args: { duration: 30, steps: 30 } } }] }, { steps: [{ text: 'gave up' }] });
    const r = await rig.keen(ws, ['run', 'wait']);
    expect(r.code).toBe(0);
    const [result] = toolResults(rig.fake.requests[from + 1]);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('timed out after 800 ms (mcp.toolTimeoutMs)');
  });

  it('talks Streamable HTTP, with ${VAR} expanded in the url', async () => {
    const server = await startEverythingHttp();
    try {
      const ws = workspace();
      writeUserConfig(ws.home, { mcpServers: { remote: { type: 'http', url: 'http://127.0.0.1:${EV_PORT}/mcp' } } });
      const from = rig.fake.requests.length;
      rig.fake.enqueue({ steps: [{ toolCall: { name: 'mcp__remote__get-sum', args: { a: 2, b: 40 } } }] }, { steps: [{ text: 'sum' }] });
      const r = await rig.keen(ws, ['run', 'add'], { env: { EV_PORT: String(server.port) } });
      expect(errorLines(r.stderr)).toEqual([]);
      expect(r.code).toBe(0);
      expect(toolsOf(from).map((t) => t.name)).toContain('mcp__remote__echo');
      const [result] = toolResults(rig.fake.requests[from + 1]);
      expect(result.isError).toBe(false);
      expect(result.text).toContain('42');
    } finally {
      await server.stop();
    }
  });

  it('talks the legacy SSE transport', async () => {
    const server = await startEverythingHttp('sse');
    try {
      const ws = workspace();
      writeUserConfig(ws.home, { mcpServers: { old: { type: 'sse', url: `http://127.0.0.1:${server.port}/sse` } } });
      const from = rig.fake.requests.length;
      rig.fake.enqueue({ steps: [{ toolCall: { name: 'mcp__old__echo', args: { message: 'over sse' } } }] }, { steps: [{ text: 'sse' }] });
      const r = await rig.keen(ws, ['run', 'echo']);
      expect(errorLines(r.stderr)).toEqual([]);
      expect(r.code).toBe(0);
      expect(toolResults(rig.fake.requests[from + 1])).toEqual([{ text: 'Echo: over sse', isError: false }]);
    } finally {
      await server.stop();
    }
  });

  it("a stdio server gets its env (${VAR} expanded) and not Keen's provider key", async () => {
    const ws = workspace();
    writeUserConfig(ws.home, { mcpServers: { ev: { ...everything(), env: { GREETING: 'hi ${WHO}' } } } });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'mcp__ev__get-env', args: {} } }] }, { steps: [{ text: 'env' }] });
    const r = await rig.keen(ws, ['run', 'env'], { env: { WHO: 'there' } });
    expect(r.code).toBe(0);
    const env = JSON.parse(toolResults(rig.fake.requests[from + 1])[0].text) as Record<string, string>;
    expect(env.GREETING).toBe('hi there');
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain(FAKE_KEY);
  });
});

describe('MCP configuration sources', () => {
  it('skips the servers of an untrusted project .mcp.json in one line; --yolo uses them', async () => {
    const mcpJson = JSON.stringify({ mcpServers: { proj: everything(), proj2: everything() } });
    const ws = workspace({ '.mcp.json': mcpJson });
    let from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'a' }] });
    let r = await rig.keen(ws, ['run', 'hi']);
    expect(r.code).toBe(0);
    expect(errorLines(r.stderr)).toEqual([
      'keen: warning: MCP servers of this project skipped (the project is not trusted): proj, proj2; trust the folder (--trust; the REPL asks once) to use them',
    ]);
    expect(toolsOf(from).some((t) => t.name.startsWith('mcp__'))).toBe(false);

    from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'b' }] });
    r = await rig.keen(ws, ['run', '--yolo', 'hi']);
    expect(errorLines(r.stderr)).toEqual([]);
    expect(toolsOf(from).map((t) => t.name)).toEqual(expect.arrayContaining(['mcp__proj__echo', 'mcp__proj2__echo']));
  });

  it('servers in the project’s .keen/config.json start in a trusted folder and are named as skipped in an untrusted one', async () => {
    const ws = workspace({ '.keen/config.json': JSON.stringify({ mcpServers: { projcfg: everything() } }) });
    let from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'a' }] });
    let r = await rig.keen(ws, ['run', 'hi']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/projcfg/);
    expect(toolsOf(from).some((t) => t.name.startsWith('mcp__'))).toBe(false);

    from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'b' }] });
    r = await rig.keen(ws, ['run', '--trust', 'hi']);
    expect(errorLines(r.stderr)).toEqual([]);
    expect(toolsOf(from).map((t) => t.name)).toContain('mcp__projcfg__echo');
  });

  it('--mcp-config adds servers for one run; disabled: true turns one off', async () => {
    const ws = workspace({ 'extra.json': JSON.stringify({ mcpServers: { extra: everything() } }) });
    writeUserConfig(ws.home, { mcpServers: { off: { ...everything(), disabled: true } } });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', '--mcp-config', 'extra.json', 'hi']);
    expect(errorLines(r.stderr)).toEqual([]);
    const names = toolsOf(from).map((t) => t.name);
    expect(names).toContain('mcp__extra__echo');
    expect(names.some((n) => n.startsWith('mcp__off'))).toBe(false);
  });

  it('a bad server entry is one line naming the file and the field', async () => {
    const ws = workspace({ '.mcp.json': JSON.stringify({ mcpServers: { bad: { type: 'http' } } }) });
    const r = await rig.keen(ws, ['run', '--yolo', 'hi']);
    expect(r.code).not.toBe(0);
    expect(errorLines(r.stderr)).toEqual([`keen: invalid MCP config ${path.join(fs.realpathSync(ws.cwd), '.mcp.json')}: field mcpServers.bad.url: a "http" server needs a url`]);

    writeUserConfig(ws.home, { mcpServers: { 'two words': everything() } });
    fs.rmSync(path.join(ws.cwd, '.mcp.json'));
    const r2 = await rig.keen(ws, ['run', 'hi']);
    expect(r2.code).not.toBe(0);
    expect(errorLines(r2.stderr)).toHaveLength(1);
    expect(errorLines(r2.stderr)[0]).toMatch(/^keen: invalid config .*config\.json: field mcpServers\.two words: server names use letters/);
  });
});

describe('keen mcp', () => {
  it('add, list and remove edit the user config and report each server', async () => {
    const ws = workspace();
    const ev = everything();
    let r = await rig.keen(ws, ['mcp', 'add', 'ev', '--', ev.command, ...ev.args]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    r = await rig.keen(ws, ['mcp', 'add', '--transport', 'http', 'web', 'http://127.0.0.1:9/mcp']);
    expect(r.code).toBe(0);
    r = await rig.keen(ws, ['mcp', 'add', 'nope', '--', 'keen-no-such-mcp-server']);
    expect(r.code).toBe(0);
    const config = JSON.parse(fs.readFileSync(path.join(ws.home, 'config.json'), 'utf8'));
    expect(config.mcpServers.ev).toEqual({ command: ev.command, args: ev.args });
    expect(config.mcpServers.web).toEqual({ type: 'http', url: 'http://127.0.0.1:9/mcp' });

    r = await rig.keen(ws, ['mcp', 'add', 'ev', '--', 'x']);
    expect(r.code).not.toBe(0);
    expect(errorLines(r.stderr)[0]).toContain('already in');

    r = await rig.keen(ws, ['mcp', 'list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ev\s+stdio\s+ready\s+\d+ tools$/);
    expect(lines[1]).toMatch(/^web\s+http\s+failed\s+0 tools\s+\S/);
    expect(lines[2]).toMatch(/^nope\s+stdio\s+failed\s+0 tools\s+command not found: keen-no-such-mcp-server$/);

    r = await rig.keen(ws, ['mcp', 'remove', 'web']);
    expect(r.code).toBe(0);
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(ws.home, 'config.json'), 'utf8')).mcpServers)).toEqual(['ev', 'nope']);
    r = await rig.keen(ws, ['mcp', 'remove', 'web']);
    expect(r.code).not.toBe(0);
    expect(errorLines(r.stderr)).toEqual([expect.stringContaining('no MCP server named "web"')]);
  });

  it('never rewrites a user config it cannot read, and refuses a bad server name', async () => {
    const ws = workspace();
    const file = path.join(ws.home, 'config.json');
    const broken = '{"model": "x", "mcpServers": {"a": {"command": "y"}},, }';
    fs.writeFileSync(file, broken);
    let r = await rig.keen(ws, ['mcp', 'add', 'b', '--', 'z']);
    expect(r.code).not.toBe(0);
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/^keen: invalid JSON in config .*config\.json: /)]);
    r = await rig.keen(ws, ['mcp', 'remove', 'a']);
    expect(r.code).not.toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(broken);

    fs.writeFileSync(file, '{"model": "claude-opus-5"}');
    r = await rig.keen(ws, ['mcp', 'add', 'two__parts', '--', 'z']);
    expect(r.code).not.toBe(0);
    expect(errorLines(r.stderr)).toEqual(['keen: invalid server name "two__parts": use letters, digits, "-" and "_" (no "__"), at most 40']);
    r = await rig.keen(ws, ['mcp', 'add', '-e', 'TOKEN=abc', 'ok', '--', 'srv', '--flag']);
    expect(r.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ model: 'claude-opus-5', mcpServers: { ok: { command: 'srv', args: ['--flag'], env: { TOKEN: 'abc' } } } });
  });
});
