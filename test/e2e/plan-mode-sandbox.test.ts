/**
 * Plan mode runs no mutating command (issue 24): with `--mode plan --yolo`, bash runs in a
 * read-only sandbox without network (real bubblewrap), so commands that looked read-only to a
 * word-splitting check and wrote anyway leave nothing behind; where no sandbox exists, plan mode
 * refuses bash with one line; subagents in plan mode, and read-only ones, are held the same way.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults, useCliRig, userTexts } from './cli-fixtures.js';
import { describeSandbox, itSandbox } from '../kit/sandbox.js';
import { tempDir } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

const ATTACKS = [
  'uniq src.txt out1',
  'sort -oout2 src.txt',
  'sort --outp=out3 src.txt',
  'find . -maxdepth 0 -fprint out4',
  'find . -maxdepth 0 -exe\\c touch out5 \\;',
  "git grep -O'touch out6' one",
  'sort -S 16K --compress-program=./squash.sh big.txt > /dev/null',
  'sort *',
  'git diff',
];

function planRepo(): ReturnType<typeof workspace> {
  const big = Array.from({ length: 40_000 }, (_, i) => `line ${(i * 7919) % 40_000}`).join('\n');
  const ws = workspace({
    'src.txt': 'b\na\na\n',
    'big.txt': `${big}\n`,
    '-op11': 'x\n',
    'squash.sh': '#!/bin/sh\ntouch out7\nexec cat\n',
    'ext.sh': '#!/bin/sh\ntouch out8\n',
    'tracked.txt': 'one\n',
  });
  fs.chmodSync(path.join(ws.cwd, 'squash.sh'), 0o755);
  fs.chmodSync(path.join(ws.cwd, 'ext.sh'), 0o755);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws.cwd, encoding: 'utf8' });
  git('init', '-q');
  git('config', 'user.email', 'e2e@example.invalid');
  git('config', 'user.name', 'e2e');
  git('add', 'tracked.txt');
  git('commit', '-qm', 'init');
  git('config', 'diff.external', './ext.sh');
  fs.writeFileSync(path.join(ws.cwd, 'tracked.txt'), 'two\n');
  return ws;
}

const MARKERS = ['out1', 'out2', 'out3', 'out4', 'out5', 'out6', 'out7', 'out8', 'p11'];

describe('keen run --mode plan: bash is read-only', () => {
  itSandbox('each "read-only looking" command that wrote or ran code leaves no file behind, even with --yolo', async () => {
    const ws = planRepo();
    const before = fs.readdirSync(ws.cwd).sort();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: ATTACKS.map((command) => ({ toolCall: { name: 'bash', args: { command } } })) }, { steps: [{ text: 'planned' }] });
    const r = await rig.keen(ws, ['run', '--yolo', '--mode', 'plan', 'plan it']);
    expect(r.code).toBe(0);
    const results = toolResults(rig.fake.requests[from + 1]);
    expect(results).toHaveLength(ATTACKS.length);
    for (const m of MARKERS) expect(fs.existsSync(path.join(ws.cwd, m)), m).toBe(false);
    expect(fs.readdirSync(ws.cwd).sort()).toEqual(before);
    // They ran, read-only: the writes failed with the file system's own error.
    expect(results[0].text).toContain('Read-only file system');
    expect(results[0].text).toContain('plan mode runs commands read-only');
  });

  itSandbox('reads still work', async () => {
    const ws = planRepo();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: 'cat src.txt; git log --format=%s' } } }] }, { steps: [{ text: 'ok' }] });
    expect((await rig.keen(ws, ['run', '--yolo', '--mode', 'plan', 'go'])).code).toBe(0);
    const [result] = toolResults(rig.fake.requests[from + 1]);
    expect(result.text).toBe('b\na\na\ninit\n[exit code 0]');
  });

  it('without a sandbox, plan mode refuses bash with one line and runs nothing', async () => {
    const ws = planRepo();
    const bin = tempDir('keen-e2e-bin-');
    try {
      for (const tool of ['bash', 'git', 'sort', 'uniq']) fs.symlinkSync(execFileSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), path.join(bin, tool));
      const from = rig.fake.requests.length;
      rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: 'uniq src.txt out1' } } }] }, { steps: [{ text: 'ok' }] });
      const r = await rig.keen(ws, ['run', '--yolo', '--mode', 'plan', 'go'], { env: { PATH: bin } });
      expect(r.code).toBe(0);
      const [result] = toolResults(rig.fake.requests[from + 1]);
      expect(result.isError).toBe(true);
      expect(result.text).toBe(
        'Plan mode runs bash only in a read-only sandbox, and there is none here (bubblewrap (bwrap) is not installed); read files with read_file, grep and glob instead.',
      );
      expect(fs.existsSync(path.join(ws.cwd, 'out1'))).toBe(false);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });
});

describeSandbox('subagents: plan mode and read-only types', () => {
  it("a child in plan mode runs bash read-only; a read-only agent type's bash is read-only in build mode too", async () => {
    const LOOKER = '---\nname: looker\ndescription: Looks around\ntools: [read_file, grep, bash]\n---\nYou are LOOKER.\n';
    const ws = workspace({ '.keen/agents/looker.md': LOOKER, 'src.txt': 'a\n' });
    for (const [mode, agent] of [
      ['plan', undefined],
      ['build', 'looker'],
    ] as const) {
      let childResult = '';
      rig.fake.setResponder((req) => {
        const child = userTexts(req)[0] === 'look';
        const results = toolResults(req);
        if (child) {
          if (results.length === 0) return { steps: [{ toolCall: { name: 'bash', args: { command: `uniq src.txt out-${mode}` } } }] };
          childResult = results[0].text;
          return { steps: [{ text: 'tried' }] };
        }
        if (results.length === 0) return { steps: [{ toolCall: { id: `t-${mode}`, name: 'task', args: { ...(agent ? { agent } : {}), prompt: 'look' } } }] };
        return { steps: [{ text: 'done' }] };
      });
      try {
        const r = await rig.keen(ws, ['run', '--yolo', '--mode', mode, 'go']);
        expect(r.code).toBe(0);
      } finally {
        rig.fake.setResponder(undefined);
      }
      expect(childResult, mode).toContain('Read-only file system');
      expect(fs.existsSync(path.join(ws.cwd, `out-${mode}`)), mode).toBe(false);
    }
  });
});
