/**
 * The terminal closing under the REPL (a window closed, ssh dropped), in a real terminal (tmux):
 * the hang-up and the EIO of the gone terminal end the REPL the graceful way — exit 129, no crash
 * report — and Node 20 does not abort on its way out restoring the vanished terminal's mode
 * (src/repl/terminal.ts, nodejs/node#51519).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTmuxRig } from './tmux.js';

const PROBE = path.resolve(import.meta.dirname, '../fixtures/exit-code-probe.cjs');

const rig = useTmuxRig();

describe('the REPL when its terminal closes', () => {
  it('exits 129 without a crash report or an abort', async () => {
    const exitFile = path.join(rig.ws.home, 'exit-code');
    const stderrFile = path.join(rig.ws.home, 'stderr');
    const t = rig.start({ stderrTo: stderrFile, env: { NODE_OPTIONS: `--require ${PROBE}`, KEEN_TEST_EXIT_OUT: exitFile } });
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
