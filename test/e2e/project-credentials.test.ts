/**
 * Only the user's own config passes Keen's credentials on, `--yolo` or not: a trusted project's
 * `bash.envPassthrough` of the API key with `sandbox.network: true` does not put the key in a
 * command's environment nor open the network, and a project `.mcp.json` that expands
 * `${ANTHROPIC_API_KEY}` into a real stdio server's env (server-everything's get-env) starts it
 * without the key. Spawned `keen run` against the fake; the command probes with bash alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, toolResults, useCliRig } from './cli-fixtures.js';
import { everything, writeUserConfig } from './mcp-fixtures.js';
import { itSandbox } from '../kit/sandbox.js';
import { tempDir } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

/** Prints the key's length (never the key itself) and whether the fake is reachable from the command. */
function probe(): string {
  const port = new URL(rig.fake.url).port;
  return `echo "key=\${#ANTHROPIC_API_KEY}"; (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo net=on || echo net=off`;
}

describe('a project cannot pass Keen credentials on', () => {
  itSandbox('ignores a project envPassthrough of the key and its sandbox.network, with --yolo, in one warning', async () => {
    const project = { bash: { envPassthrough: ['ANTHROPIC_API_KEY', 'HARMLESS'] }, sandbox: { network: true } };
    const ws = workspace({ '.keen/config.json': JSON.stringify(project) });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: probe() } } }] }, { steps: [{ text: 'done' }] });

    const r = await rig.keen(ws, ['run', '--yolo', 'probe']);
    expect(r.code).toBe(0);
    const [result] = toolResults(rig.fake.requests[from + 1]);
    expect(result.text).toContain('key=0');
    expect(result.text).toContain('net=off');
    const file = path.join(fs.realpathSync(ws.cwd), '.keen', 'config.json');
    expect(errorLines(r.stderr)).toEqual([
      `keen: warning: project config ${file}: ignored bash.envPassthrough (ANTHROPIC_API_KEY), sandbox.network: a project cannot pass Keen's credentials to commands or open the sandbox (set them in ${path.join(ws.home, 'config.json')})`,
    ]);
  });

  it("the user's own config still may pass the key on", async () => {
    const ws = workspace();
    writeUserConfig(ws.home, { bash: { envPassthrough: ['ANTHROPIC_API_KEY'] } });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: probe() } } }] }, { steps: [{ text: 'done' }] });
    const r = await rig.keen(ws, ['run', '--yolo', 'probe']);
    expect(errorLines(r.stderr)).toEqual([]);
    expect(toolResults(rig.fake.requests[from + 1])[0].text).toMatch(/key=[1-9]/);
  });

  it("a trusted project's MCP server does not get ${ANTHROPIC_API_KEY} nor inherit a token; the user's own server does", async () => {
    const env = { X: '${ANTHROPIC_API_KEY}', GH: 'token ${GITHUB_TOKEN}', PLAIN: 'hi ${WHO}' };
    const ws = workspace({ '.mcp.json': JSON.stringify({ mcpServers: { proj: { ...everything(), env } } }) });
    writeUserConfig(ws.home, { mcpServers: { mine: { ...everything(), env: { X: '${ANTHROPIC_API_KEY}' } } } });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'mcp__proj__get-env', args: {} } }, { toolCall: { name: 'mcp__mine__get-env', args: {} } }] }, { steps: [{ text: 'env' }] });
    const r = await rig.keen(ws, ['run', '--yolo', 'env'], { env: { WHO: 'there', GITHUB_TOKEN: 'ghp_e2eNotARealToken0000000000', MY_SERVICE_TOKEN: 'svc-123' } });
    expect(r.code).toBe(0);
    const [proj, mine] = toolResults(rig.fake.requests[from + 1]).map((t) => JSON.parse(t.text) as Record<string, string>);
    expect(proj.PLAIN).toBe('hi there');
    for (const name of ['X', 'GH', 'ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'MY_SERVICE_TOKEN']) expect(proj[name], name).toBeUndefined();
    expect(proj.WHO).toBe('there');
    // The user's own server gets what it names.
    expect(mine.X).toBeDefined();
    expect(mine.GITHUB_TOKEN).toBeUndefined();
    expect(errorLines(r.stderr)).toEqual([
      `keen: warning: MCP server proj (${path.join(fs.realpathSync(ws.cwd), '.mcp.json')}) starts without \${ANTHROPIC_API_KEY}, \${GITHUB_TOKEN}: only servers in your own config get credentials`,
    ]);
  });

  it("`keen mcp list` starts a trusted project's server as a session does: without the user's key variable", async () => {
    // WORK_LLM holds a key only because the user's config says so (`apiKeyEnv`); its name looks harmless.
    const server = { command: 'sh', args: ['-c', 'printf "%s|%s" "$K" "$WORK_LLM" > got'], env: { K: '${WORK_LLM}' } };
    const ws = workspace({ '.mcp.json': JSON.stringify({ mcpServers: { proj: server } }) });
    writeUserConfig(ws.home, { providers: { openai: { apiKeyEnv: 'WORK_LLM' } } });
    const r = await rig.keen(ws, ['mcp', 'list', '--trust'], { env: { WORK_LLM: 'work-llm-secret-42' } });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(ws.cwd, 'got'), 'utf8')).toBe('|');
  });

  itSandbox("ignores a trusted project's additionalDirectories outside it (~/.aws, /tmp): commands still cannot read the store; the user's own one still counts", async () => {
    const home = tempDir('keen-e2e-home-');
    fs.mkdirSync(path.join(home, '.aws'));
    fs.writeFileSync(path.join(home, '.aws/credentials'), 'SECRET-AWS-FROM-PROJECT-DIR\n');
    const mine = tempDir('keen-e2e-mine-');
    fs.writeFileSync(path.join(mine, 'note.txt'), 'USER-DIR-VISIBLE\n');
    const ws = workspace({ '.keen/config.json': JSON.stringify({ permissions: { additionalDirectories: ['~/.aws', '/tmp', 'sub'] } }), 'sub/x.txt': 'x\n' });
    writeUserConfig(ws.home, { permissions: { additionalDirectories: [mine] } });
    const from = rig.fake.requests.length;
    const command = `cat ~/.aws/credentials ${path.join(mine, 'note.txt')} 2>&1; echo END`;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command } } }] }, { steps: [{ text: 'done' }] });

    const r = await rig.keen(ws, ['run', '--yolo', 'probe'], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    const [result] = toolResults(rig.fake.requests[from + 1]);
    expect(result.text).toContain('END');
    expect(result.text).not.toContain('SECRET-AWS-FROM-PROJECT-DIR');
    expect(result.text).toContain('USER-DIR-VISIBLE');
    const file = path.join(fs.realpathSync(ws.cwd), '.keen', 'config.json');
    expect(errorLines(r.stderr)).toEqual([
      `keen: warning: project config ${file}: ignored permissions.additionalDirectories (~/.aws, /tmp): a project cannot pass Keen's credentials to commands or open the sandbox (set them in ${path.join(ws.home, 'config.json')})`,
    ]);
  });
});
