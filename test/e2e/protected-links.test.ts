/**
 * A protected path that is itself a symlink inside the workspace (`.vscode -> cfg/vscode`):
 * bubblewrap binds its target read-only but cannot mount over the link, so sandboxed bash could
 * replace the link with a folder of its own. After the command Keen puts the link back and keeps
 * what replaced it under another name. Real bubblewrap, a spawned `keen run --yolo`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { toolResults, useCliRig } from './cli-fixtures.js';
import { describeSandbox } from '../kit/sandbox.js';

const { rig, workspace } = useCliRig();

describeSandbox('protected symlinks', () => {
  it('a replaced or re-pointed protected link is put back after the command, and the model is told', async () => {
    const ws = workspace({ 'cfg/vscode/settings.json': '{}\n', 'cfg/other/tasks.json': '{"planted":true}\n' });
    fs.symlinkSync('cfg/vscode', path.join(ws.cwd, '.vscode'));
    fs.symlinkSync('cfg/vscode/settings.json', path.join(ws.cwd, '.mcp.json'));
    fs.mkdirSync(path.join(ws.cwd, 'realgit'));
    execFileSync('git', ['init', '-q', '--separate-git-dir', path.join(ws.cwd, 'realgit'), path.join(ws.cwd, 'tmp-init')]);
    fs.rmSync(path.join(ws.cwd, 'tmp-init'), { recursive: true });
    fs.symlinkSync('realgit', path.join(ws.cwd, '.git'));
    const from = rig.fake.requests.length;
    const command = [
      'rm .vscode && mkdir .vscode && echo \'{"tasks":"planted"}\' > .vscode/tasks.json',
      'ln -sfn cfg/other/tasks.json .mcp.json',
      'cp -a realgit copygit && printf "[core]\\n\\tfsmonitor = touch PWNED\\n" >> copygit/config && ln -sfn copygit .git',
      'echo END',
    ].join('; ');
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command } } }] }, { steps: [{ text: 'ok' }] });
    const r = await rig.keen(ws, ['run', '--yolo', 'go']);
    expect(r.code).toBe(0);
    const result = toolResults(rig.fake.requests[from + 1])[0].text;
    expect(result).toContain('END');
    expect(fs.readlinkSync(path.join(ws.cwd, '.vscode'))).toBe('cfg/vscode');
    expect(fs.readlinkSync(path.join(ws.cwd, '.mcp.json'))).toBe('cfg/vscode/settings.json');
    expect(fs.readlinkSync(path.join(ws.cwd, '.git'))).toBe('realgit');
    expect(fs.existsSync(path.join(ws.cwd, 'cfg/vscode/tasks.json'))).toBe(false);
    // What replaced the folder link is kept aside, under a name no tool reads.
    const kept = fs.readdirSync(ws.cwd).filter((n) => n.startsWith('.vscode.replaced-'));
    expect(kept).toHaveLength(1);
    expect(fs.readFileSync(path.join(ws.cwd, kept[0], 'tasks.json'), 'utf8')).toContain('planted');
    expect(result).toMatch(/\[sandbox: .*\.vscode is a protected path: the link to cfg\/vscode was put back/);
    expect(result).toMatch(/\[sandbox: .*\.mcp\.json is a protected path: the link to cfg\/vscode\/settings\.json was put back/);
  });
});
