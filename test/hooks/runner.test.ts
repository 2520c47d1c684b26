/** The hook runner against real shells: stdin, exit codes, the environment, the timeout's kill. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHookCommand } from '../../src/hooks/runner.js';
import { alive } from '../kit/processes.js';
import { tempDir } from '../kit/temp-dir.js';

const base = (cwd: string) => ({ cwd, env: { PATH: process.env.PATH, ONLY: 'this' }, timeoutSeconds: 10 });

describe('runHookCommand', () => {
  it('writes the event to stdin, runs in cwd with exactly the given environment', async () => {
    const cwd = tempDir();
    const run = await runHookCommand({ ...base(cwd), command: 'cat; echo; pwd; echo "$ONLY ${HOME:-no-home}"', input: '{"hook_event_name":"Stop"}' });
    expect(run).toEqual({ code: 0, stdout: `{"hook_event_name":"Stop"}\n${fs.realpathSync(cwd)}\nthis no-home\n`, stderr: '', timedOut: false });
  });

  it('reports exit 2 with its stderr; a hook that ignores a large input is fine', async () => {
    const run = await runHookCommand({ ...base(tempDir()), command: 'echo nope >&2; exit 2', input: 'x'.repeat(1_000_000) });
    expect(run).toMatchObject({ code: 2, stderr: 'nope\n', timedOut: false });
  });

  it('at the timeout the command and what it started are killed', async () => {
    const cwd = tempDir();
    const pidFile = path.join(cwd, 'child.pid');
    const run = await runHookCommand({ ...base(cwd), timeoutSeconds: 0.5, command: `sleep 300 & echo $! > '${pidFile}'; wait`, input: '' });
    expect(run.timedOut).toBe(true);
    const child = Number(fs.readFileSync(pidFile, 'utf8'));
    // The child sleeps far beyond the test timeout: only the kill ends this wait.
    while (alive(child)) await new Promise((r) => setTimeout(r, 10));
  });

  it('an aborted signal kills it too', async () => {
    const controller = new AbortController();
    const running = runHookCommand({ ...base(tempDir()), command: 'sleep 30', input: '', signal: controller.signal });
    controller.abort();
    expect(await running).toMatchObject({ timedOut: false, code: null });
  });
});
