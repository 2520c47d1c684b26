/**
 * Permission rules and modes end to end: the real bundle, spawned against the loopback fake,
 * with rules in the user's config, the project's config and on the command line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, toolResults, useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

function userConfig(home: string, config: unknown): void {
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify(config));
}

describe('keen run: rule precedence deny > ask > allow', () => {
  it('for bash, a file tool and a read: deny names its rule, ask is refused headless, allow runs', async () => {
    const ws = workspace({ 'a.txt': 'alpha\n', '.env': 'TOKEN=x\n' });
    userConfig(ws.home, {
      permissions: {
        allow: ['bash(echo *)', 'edit_file', 'read_file'],
        ask: ['bash(echo ask*)', 'edit_file(a.txt)'],
        deny: ['bash(echo deny*)', 'read_file(.env)'],
      },
    });
    const second = rig.script([
      { name: 'bash', args: { command: 'echo allowed-ran' } },
      { name: 'bash', args: { command: 'echo ask-me' } },
      { name: 'bash', args: { command: 'echo deny-me' } },
      { name: 'edit_file', args: { path: 'a.txt', old_string: 'alpha', new_string: 'beta' } },
      { name: 'read_file', args: { path: '.env' } },
      { name: 'read_file', args: { path: 'a.txt' } },
    ]);
    const r = await rig.keen(ws, ['run', 'go']);
    expect(r.code).toBe(0);
    // A `*` with no word boundary before it is warned about once, naming the file and the rule.
    const config = path.join(ws.home, 'config.json');
    expect(errorLines(r.stderr)).toEqual([
      `keen: ${config}: permissions.ask[0]: the rule "bash(echo ask*)" has no word boundary before its *: it matches every command starting with "echo ask" ("echo ask-x" too); write "bash(echo ask:*)" for "echo ask" alone or with arguments`,
      `keen: ${config}: permissions.deny[0]: the rule "bash(echo deny*)" has no word boundary before its *: it matches every command starting with "echo deny" ("echo deny-x" too); write "bash(echo deny:*)" for "echo deny" alone or with arguments`,
    ]);
    const results = toolResults(rig.fake.requests[second]);
    expect(results.map((t) => t.isError)).toEqual([false, true, true, true, true, false]);
    expect(results[0].text).toContain('allowed-ran');
    expect(results[1].text).toContain('matches the ask rule "bash(echo ask*)"');
    expect(results[2].text).toBe('Permission denied: bash is blocked by the rule "bash(echo deny*)" (user config permissions.deny). Do not retry it.');
    expect(results[3].text).toContain('matches the ask rule "edit_file(a.txt)"');
    expect(results[4].text).toContain('blocked by the rule "read_file(.env)"');
    expect(results[4].text).not.toContain('TOKEN');
    expect(fs.readFileSync(path.join(ws.cwd, 'a.txt'), 'utf8')).toBe('alpha\n');
  });

  it('--disallowed-tools beats --yolo; --allowed-tools path rules allow only their paths', async () => {
    const ws = workspace({ 'src/a.ts': 'a\n', 'lib/b.ts': 'b\n' });
    const second = rig.script([
      { name: 'edit_file', args: { path: 'src/a.ts', old_string: 'a', new_string: 'A' } },
      { name: 'edit_file', args: { path: 'lib/b.ts', old_string: 'b', new_string: 'B' } },
    ]);
    const r = await rig.keen(ws, ['run', '--allowed-tools', 'edit_file(src/**)', 'go']);
    expect(r.code).toBe(0);
    expect(toolResults(rig.fake.requests[second]).map((t) => t.isError)).toEqual([false, true]);
    expect(fs.readFileSync(path.join(ws.cwd, 'src/a.ts'), 'utf8')).toBe('A\n');
    expect(fs.readFileSync(path.join(ws.cwd, 'lib/b.ts'), 'utf8')).toBe('b\n');

    const third = rig.script([{ name: 'bash', args: { command: 'touch made' } }]);
    const y = await rig.keen(ws, ['run', '--yolo', '--disallowed-tools', 'bash(touch:*),grep', 'go']);
    expect(y.code).toBe(0);
    expect(toolResults(rig.fake.requests[third])[0].text).toContain('blocked by the rule "bash(touch:*)" (--disallowed-tools)');
    expect(fs.existsSync(path.join(ws.cwd, 'made'))).toBe(false);
  });

  it('a bad rule on the command line is one error line naming it', async () => {
    const ws = workspace();
    const r = await rig.keen(ws, ['run', '--allowed-tools', 'bash(npm test', 'go']);
    expect(r.code).not.toBe(0);
    expect(errorLines(r.stderr)).toEqual([
      'keen: --allowed-tools[0]: invalid permission rule "bash(npm test": use a tool name ("write_file"), "bash(<command>)" or "<file tool>(<glob>)"',
    ]);
    const m = await rig.keen(ws, ['run', '--permission-mode', 'yolo', 'go']);
    expect(errorLines(m.stderr)).toEqual(['keen: unknown permission mode "yolo" (--permission-mode); choose one of default, acceptEdits, plan, bypassPermissions']);
  });
});

describe('keen run: modes', () => {
  it('acceptEdits edits and creates files, but bash is denied headless', async () => {
    const ws = workspace({ 'a.txt': 'one\n' });
    const second = rig.script([
      { name: 'edit_file', args: { path: 'a.txt', old_string: 'one', new_string: 'two' } },
      { name: 'write_file', args: { path: 'b.txt', content: 'new\n' } },
      { name: 'bash', args: { command: 'touch c.txt' } },
    ]);
    const r = await rig.keen(ws, ['run', '--permission-mode', 'acceptEdits', 'go']);
    expect(r.code).toBe(0);
    expect(toolResults(rig.fake.requests[second]).map((t) => t.isError)).toEqual([false, false, true]);
    expect(fs.readFileSync(path.join(ws.cwd, 'a.txt'), 'utf8')).toBe('two\n');
    expect(fs.readFileSync(path.join(ws.cwd, 'b.txt'), 'utf8')).toBe('new\n');
    expect(fs.existsSync(path.join(ws.cwd, 'c.txt'))).toBe(false);
  });

  it('plan is read-only: reads run, edits and bash are refused', async () => {
    const ws = workspace({ 'a.txt': 'one\n' });
    const second = rig.script([
      { name: 'read_file', args: { path: 'a.txt' } },
      { name: 'write_file', args: { path: 'b.txt', content: 'x' } },
    ]);
    const r = await rig.keen(ws, ['run', '--permission-mode', 'plan', '--allowed-tools', 'write_file', 'go']);
    expect(r.code).toBe(0);
    const results = toolResults(rig.fake.requests[second]);
    expect(results.map((t) => t.isError)).toEqual([false, true]);
    expect(results[1].text).toContain('Plan mode is on: write_file would change files or state, so it was not run.');
    expect(fs.existsSync(path.join(ws.cwd, 'b.txt'))).toBe(false);
  });

  it('bypassPermissions (--yolo) runs everything except writes outside the workspace and protected paths', async () => {
    const ws = workspace({ '.git/config': '[core]\n' });
    const outside = path.join(path.dirname(ws.cwd), 'outside.txt');
    const second = rig.script([
      { name: 'bash', args: { command: 'echo ran > ran.txt' } },
      { name: 'write_file', args: { path: outside, content: 'x' } },
      { name: 'write_file', args: { path: '.git/config', content: '[core]\n\tfsmonitor = "touch pwned"\n' } },
      { name: 'write_file', args: { path: '.keen/config.json', content: '{"permissions":{"allow":["bash"]}}' } },
    ]);
    const r = await rig.keen(ws, ['run', '--permission-mode', 'bypassPermissions', 'go']);
    expect(r.code).toBe(0);
    const results = toolResults(rig.fake.requests[second]);
    expect(results.map((t) => t.isError)).toEqual([false, true, true, true]);
    expect(results[1].text).toContain('outside the workspace');
    expect(results[2].text).toContain('is protected (.git changes what Keen or git runs)');
    expect(results[3].text).toContain('is protected (.keen');
    expect(fs.existsSync(path.join(ws.cwd, 'ran.txt'))).toBe(true);
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.readFileSync(path.join(ws.cwd, '.git/config'), 'utf8')).toBe('[core]\n');
    expect(fs.existsSync(path.join(ws.cwd, '.keen/config.json'))).toBe(false);
  });

  it("a rule in the user's own config unlocks a protected path it names", async () => {
    const ws = workspace();
    userConfig(ws.home, { permissions: { allow: ['write_file(.keen/commands/**)'] } });
    const second = rig.script([{ name: 'write_file', args: { path: '.keen/commands/fix.md', content: 'fix it\n' } }]);
    const r = await rig.keen(ws, ['run', 'go']);
    expect(r.code).toBe(0);
    expect(toolResults(rig.fake.requests[second])[0].isError).toBe(false);
    expect(fs.readFileSync(path.join(ws.cwd, '.keen/commands/fix.md'), 'utf8')).toBe('fix it\n');
  });
});

describe('keen run: untrusted projects and paths outside', () => {
  it("an untrusted project's permissions.allow does not let bash run; its deny still counts", async () => {
    const ws = workspace({ '.keen/config.json': JSON.stringify({ permissions: { allow: ['bash'], deny: ['read_file(secret.txt)'] } }), 'secret.txt': 's\n' });
    const second = rig.script([
      { name: 'bash', args: { command: 'touch pwned' } },
      { name: 'read_file', args: { path: 'secret.txt' } },
    ]);
    const r = await rig.keen(ws, ['run', 'summarize this repo']);
    expect(r.code).toBe(0);
    const results = toolResults(rig.fake.requests[second]);
    expect(results.map((t) => t.isError)).toEqual([true, true]);
    expect(fs.existsSync(path.join(ws.cwd, 'pwned'))).toBe(false);
  });

  it('a symlink inside the workspace pointing out is outside: the read is denied headless, allowed with --add-dir', async () => {
    const ws = workspace();
    const outsideDir = path.join(path.dirname(ws.cwd), 'elsewhere');
    fs.mkdirSync(outsideDir);
    fs.writeFileSync(path.join(outsideDir, 'secret.txt'), 'OUTSIDE-SECRET\n');
    fs.symlinkSync(path.join(outsideDir, 'secret.txt'), path.join(ws.cwd, 'link.txt'));
    const second = rig.script([{ name: 'read_file', args: { path: 'link.txt' } }]);
    const r = await rig.keen(ws, ['run', 'read it']);
    expect(r.code).toBe(0);
    const [denied] = toolResults(rig.fake.requests[second]);
    expect(denied.isError).toBe(true);
    expect(denied.text).toContain('is outside the workspace');
    expect(denied.text).not.toContain('OUTSIDE-SECRET');

    const third = rig.script([{ name: 'read_file', args: { path: 'link.txt' } }]);
    const a = await rig.keen(ws, ['run', '--add-dir', outsideDir, 'read it']);
    expect(a.code).toBe(0);
    expect(toolResults(rig.fake.requests[third])[0].text).toContain('OUTSIDE-SECRET');
  });

  it('absolute reads of ~/.ssh are denied headless; writes through a hard link to an outside file are refused', async () => {
    const ws = workspace();
    const home = path.join(path.dirname(ws.cwd), 'userhome');
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
    fs.writeFileSync(path.join(home, '.ssh/id_x'), 'PRIVATE-KEY\n');
    fs.writeFileSync(path.join(home, 'victim.txt'), 'safe\n');
    fs.linkSync(path.join(home, 'victim.txt'), path.join(ws.cwd, 'linked.txt'));
    const second = rig.script([
      { name: 'read_file', args: { path: '~/.ssh/id_x' } },
      { name: 'write_file', args: { path: 'linked.txt', content: 'owned\n' } },
    ]);
    const r = await rig.keen(ws, ['run', '--permission-mode', 'acceptEdits', 'go'], { env: { HOME: home } });
    expect(r.code).toBe(0);
    const results = toolResults(rig.fake.requests[second]);
    expect(results.map((t) => t.isError)).toEqual([true, true]);
    expect(results[0].text).not.toContain('PRIVATE-KEY');
    expect(results[1].text).toContain('hard links');
    expect(fs.readFileSync(path.join(home, 'victim.txt'), 'utf8')).toBe('safe\n');
  });
});
