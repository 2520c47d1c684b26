/**
 * A rule that names no tool is an error, Claude Code's tool names are aliases, and options given
 * before a subcommand are applied (issue 26). The real bundle, spawned against the loopback fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, toolResults, userTexts, useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

function userConfig(home: string, config: unknown): void {
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify(config));
}

describe('Claude Code tool names are aliases', () => {
  it('--yolo --disallowed-tools Bash refuses bash', async () => {
    const ws = workspace();
    const second = rig.script([{ name: 'bash', args: { command: 'touch made' } }]);
    const r = await rig.keen(ws, ['run', '--yolo', '--disallowed-tools', 'Bash', 'go']);
    expect(r.code).toBe(0);
    expect(toolResults(rig.fake.requests[second])[0].text).toContain('blocked by the rule "bash" (--disallowed-tools)');
    expect(fs.existsSync(path.join(ws.cwd, 'made'))).toBe(false);
  });

  it('"deny": ["Bash"] in the user config refuses bash under --yolo', async () => {
    const ws = workspace();
    userConfig(ws.home, { permissions: { deny: ['Bash'] } });
    const second = rig.script([{ name: 'bash', args: { command: 'touch made' } }]);
    const r = await rig.keen(ws, ['run', '--yolo', 'go']);
    expect(r.code).toBe(0);
    expect(toolResults(rig.fake.requests[second])[0].text).toContain('blocked by the rule "bash" (user config permissions.deny)');
    expect(fs.existsSync(path.join(ws.cwd, 'made'))).toBe(false);
  });

  it('--disallowed-tools "Bash(rm:*)" is bash(rm:*), and --allowedTools takes a blank-separated list', async () => {
    const ws = workspace({ 'a.txt': 'alpha\n', 'doomed.txt': 'x\n' });
    const second = rig.script([
      { name: 'bash', args: { command: 'echo allowed-ran' } },
      { name: 'read_file', args: { path: 'a.txt' } },
      { name: 'bash', args: { command: 'rm doomed.txt' } },
      { name: 'write_file', args: { path: 'b.txt', content: 'b' } },
    ]);
    const r = await rig.keen(ws, ['run', '--allowedTools', 'Bash(echo:*) Read,Bash(rm -f x:*)', '--disallowedTools', 'Bash(rm:*)', 'go']);
    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    const results = toolResults(rig.fake.requests[second]);
    expect(results.map((t) => t.isError)).toEqual([false, false, true, true]);
    expect(results[0].text).toContain('allowed-ran');
    expect(results[1].text).toContain('alpha');
    expect(results[2].text).toContain('blocked by the rule "bash(rm:*)" (--disallowed-tools)');
    expect(fs.existsSync(path.join(ws.cwd, 'doomed.txt'))).toBe(true);
  });
});

describe('a rule naming no tool is an error', () => {
  it('on the command line: exit 2 and one line with the close name', async () => {
    const ws = workspace();
    const before = rig.fake.requests.length;
    const r = await rig.keen(ws, ['run', '--yolo', '--disallowed-tools', 'bassh', 'go']);
    expect(r.code).toBe(2);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^keen: --disallowed-tools\[0\]: invalid permission rule "bassh": no tool is named "bassh" \(did you mean bash\?\)/);
    expect(rig.fake.requests.length).toBe(before);
  });

  it('in the user config: exit 2 and one line naming the file and the field', async () => {
    const ws = workspace();
    userConfig(ws.home, { permissions: { deny: ['read_file(.env)', 'Bassh(rm:*)'] } });
    const r = await rig.keen(ws, ['run', 'go']);
    expect(r.code).toBe(2);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `${path.join(ws.home, 'config.json')}: field permissions.deny[1]: invalid permission rule "Bassh(rm:*)": no tool is named "Bassh" (did you mean bash?)`,
    );
  });

  it('an MCP rule must name a configured server; any tool of one is accepted', async () => {
    const ws = workspace({ '.mcp.json': JSON.stringify({ mcpServers: { github: { command: 'false' } } }) });
    const bad = await rig.keen(ws, ['run', '--disallowed-tools', 'mcp__githb__create_issue', 'go']);
    expect(bad.code).toBe(2);
    expect(errorLines(bad.stderr)).toEqual([
      'keen: --disallowed-tools[0]: invalid permission rule "mcp__githb__create_issue": no MCP server "githb" is configured (configured: github) (did you mean github?)',
    ]);
    rig.fake.enqueue({ steps: [{ text: 'ok' }] });
    const good = await rig.keen(ws, ['run', '--disallowed-tools', 'mcp__github__create_issue,mcp__github__*', 'go']);
    expect(good.code).toBe(0);
  });
});

describe('options before a subcommand are applied', () => {
  it('keen --yolo run x: yolo applies and the model is sent "x"', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    const second = rig.script([{ name: 'write_file', args: { path: 'w.txt', content: 'written\n' } }]);
    const r = await rig.keen(ws, ['--yolo', 'run', 'x']);
    expect(r.code).toBe(0);
    expect(userTexts(rig.fake.requests[from])).toEqual(['x']);
    expect(toolResults(rig.fake.requests[second])[0].isError).toBe(false);
    expect(fs.readFileSync(path.join(ws.cwd, 'w.txt'), 'utf8')).toBe('written\n');
  });

  it("keen -C dir run …: runs in dir; keen --allowed-tools R run joins with the run's own", async () => {
    const ws = workspace({ 'sub/keep.txt': 'k\n' });
    const second = rig.script([
      { name: 'write_file', args: { path: 'w.txt', content: 'w\n' } },
      { name: 'bash', args: { command: 'echo hi' } },
    ]);
    const r = await rig.keen(ws, ['-C', 'sub', '--allowed-tools', 'write_file', 'run', '--allowed-tools', 'bash(echo:*)', 'go']);
    expect(r.code).toBe(0);
    expect(toolResults(rig.fake.requests[second]).map((t) => t.isError)).toEqual([false, false]);
    expect(fs.readFileSync(path.join(ws.cwd, 'sub', 'w.txt'), 'utf8')).toBe('w\n');
    expect(fs.existsSync(path.join(ws.cwd, 'w.txt'))).toBe(false);
  });

  it('an option the subcommand does not take is refused with one line, exit 2', async () => {
    const ws = workspace();
    const r = await rig.keen(ws, ['--yolo', 'sessions']);
    expect(r.code).toBe(2);
    expect(errorLines(r.stderr)).toEqual(['keen: --yolo does not apply to `keen sessions` (see `keen sessions --help`)']);
  });
});

describe('one plan mode', () => {
  it('--permission-mode plan and --mode plan refuse a write with the same text, and both put plan mode in the prompt', async () => {
    const texts: string[] = [];
    for (const flags of [
      ['--permission-mode', 'plan'],
      ['--mode', 'plan'],
      ['--yolo', '--mode', 'plan'],
    ]) {
      const ws = workspace();
      const from = rig.fake.requests.length;
      const second = rig.script([{ name: 'write_file', args: { path: 'w.txt', content: 'w' } }]);
      const r = await rig.keen(ws, ['run', ...flags, '--allowed-tools', 'write_file', 'go']);
      expect(r.code).toBe(0);
      expect(JSON.stringify(rig.fake.requests[from].body.system)).toContain('Plan mode is on.');
      const result = toolResults(rig.fake.requests[second])[0];
      expect(result.isError).toBe(true);
      texts.push(result.text);
      expect(fs.existsSync(path.join(ws.cwd, 'w.txt'))).toBe(false);
    }
    expect(new Set(texts).size).toBe(1);
    expect(texts[0]).toMatch(/^Plan mode is on: write_file would change files or state, so it was not run\./);
  });
});

describe("Claude Code's --dangerously-skip-permissions and usage exit codes", () => {
  it('--dangerously-skip-permissions is --yolo, before or after run', async () => {
    for (const args of [
      ['run', '--dangerously-skip-permissions', 'go'],
      ['--dangerously-skip-permissions', 'run', 'go'],
    ]) {
      const ws = workspace();
      const second = rig.script([{ name: 'write_file', args: { path: 'w.txt', content: 'w\n' } }]);
      const r = await rig.keen(ws, args);
      expect(r.code).toBe(0);
      expect(toolResults(rig.fake.requests[second])[0].isError).toBe(false);
      expect(fs.readFileSync(path.join(ws.cwd, 'w.txt'), 'utf8')).toBe('w\n');
    }
  });

  it('--permission-mode bogus and undo --turns 0 exit 2 with one line', async () => {
    const ws = workspace();
    const mode = await rig.keen(ws, ['run', '--permission-mode', 'bogus', 'go']);
    expect(mode.code).toBe(2);
    expect(errorLines(mode.stderr)).toHaveLength(1);
    const undo = await rig.keen(ws, ['undo', '--turns', '0']);
    expect(undo.code).toBe(2);
    expect(errorLines(undo.stderr)).toEqual(['keen: --turns must be a whole number of turns, 1 or more (got "0")']);
    const provider = await rig.keen(ws, ['run', '--provider', 'anthropc', 'go']);
    expect(provider.code).toBe(2);
    expect(errorLines(provider.stderr)).toEqual([expect.stringMatching(/^keen: unknown provider "anthropc"; choose one of anthropic, /)]);
    const env = await rig.keen(ws, ['run', 'go'], { env: { KEEN_PROVIDER: 'bogus' } });
    expect(env.code).toBe(2);
    expect(errorLines(env.stderr)).toEqual([expect.stringMatching(/^keen: unknown provider "bogus" in KEEN_PROVIDER; choose one of anthropic, /)]);
  });
});
