/**
 * The terminal closing under the REPL (a window closed, ssh dropped), in a real terminal (tmux):
 * the hang-up and the EIO of the gone terminal end the REPL the graceful way — exit 129, no crash
 * report — and Node 20 does not abort on its way out restoring the vanished terminal's mode
 * (src/repl/terminal.ts, nodejs/node#51519).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { makeWorkspace, type Workspace } from '../e2e/harness.js';
import { TmuxKeen } from './tmux.js';

const PROBE = path.resolve(import.meta.dirname, '../fixtures/exit-code-probe.cjs');

let ws: Workspace | undefined;
let fake: ScriptedServer | undefined;
let t: TmuxKeen | undefined;
afterEach(async () => {
  t?.kill();
  await fake?.close();
  ws?.cleanup();
  t = fake = ws = undefined;
});

describe('the REPL when its terminal closes', () => {
  it('exits 129 without a crash report or an abort', async () => {
    ws = makeWorkspace();
    fake = await startAnthropicFake();
    const exitFile = path.join(ws.home, 'exit-code');
    const stderrFile = path.join(ws.home, 'stderr');
    t = TmuxKeen.start({
      cwd: ws.cwd,
      stderrTo: stderrFile,
      env: {
        KEEN_HOME: ws.home,
        ANTHROPIC_API_KEY: 'sk-ant-test-hangup',
        ANTHROPIC_BASE_URL: fake.url,
        NODE_OPTIONS: `--require ${PROBE}`,
        KEEN_TEST_EXIT_OUT: exitFile,
      },
    });
    await t.waitFor('% context');
    t.kill();
    const deadline = Date.now() + 10_000;
    while (!fs.existsSync(exitFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    // The abort would come after the exit handlers: give it the time to write its report.
    await new Promise((r) => setTimeout(r, 500));
    expect(fs.readFileSync(exitFile, 'utf8')).toBe('129');
    const stderr = fs.readFileSync(stderrFile, 'utf8');
    expect(stderr).not.toMatch(/Assertion failed|EIO|keen: /);
  });
});
