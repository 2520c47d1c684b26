/**
 * A headless run starts the prompt's git status as soon as its folder is known, before the
 * session's modules load (src/cli/commands.ts), and hands it to the session: the session's first
 * turn uses that run (no second git), and the session closes it. One started for another folder
 * is closed and replaced.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSession } from '../../src/agent/open-session.js';
import { GitStatusCache } from '../../src/project/git-status.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { countingGit } from '../kit/counting-git.js';
import { tempDir } from '../kit/temp-dir.js';

let fake: AnthropicFake;
beforeAll(async () => {
  fake = await startAnthropicFake();
});
afterAll(async () => fake.close());

/** A stand-in git that never ends (until killed). */
const HANGS = { file: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };

function folder() {
  const cwd = fs.realpathSync(tempDir('keen-early-git-'));
  const home = tempDir('keen-early-git-home-');
  return { cwd, home };
}

const open = (at: { cwd: string; home: string }, git: GitStatusCache) =>
  openSession({
    cwd: at.cwd,
    env: { KEEN_HOME: at.home, PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: fake.url },
    flags: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
    interactive: false,
    git,
  });

async function oneTurn(session: Awaited<ReturnType<typeof open>>, input: string): Promise<void> {
  for await (const _ of session.controller.chat(input)) {
    // drain the turn's events
  }
}

describe('the git status a headless run starts early', () => {
  it("is the first turn's: the prompt carries its output and no second git runs", async () => {
    const at = folder();
    const git = countingGit(at.cwd, 'early-run');
    const early = new GitStatusCache(at.cwd, { command: git.command });
    early.refresh();
    // Finished before the open, as on a fast machine: the open must not start another.
    await vi.waitFor(() => expect(early.text()).toContain('early-run-1.txt'), { timeout: 10_000 });
    fake.setResponder(() => ({ steps: [{ text: 'ok' }] }));
    const session = await open(at, early);
    try {
      await oneTurn(session, 'hello');
    } finally {
      await session.close();
    }
    expect(git.runs()).toBe(1);
    expect(JSON.stringify(fake.requests.at(-1)?.body.system)).toContain('early-run-1.txt');
  });

  it('one started for another folder is closed (its git stopped), and the session runs its own', async () => {
    const at = folder();
    const elsewhere = new GitStatusCache(tempDir('keen-early-git-other-'), { command: HANGS });
    elsewhere.refresh();
    expect(elsewhere.text()).toMatch(/still running/);
    fake.setResponder(() => ({ steps: [{ text: 'ok' }] }));
    const session = await open(at, elsewhere);
    try {
      // Stopped: the run in flight ends with nothing, so the note goes away.
      await vi.waitFor(() => expect(elsewhere.text()).toBeUndefined(), { timeout: 10_000 });
    } finally {
      await session.close();
    }
  });
});
