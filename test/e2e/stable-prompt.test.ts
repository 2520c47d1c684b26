/**
 * The system prompt and the tool list stay byte-identical for a whole session, across
 * `keen run --continue`: what changes between turns (git status after an edit, a memory file, the
 * mode) reaches the model in a reminder ahead of the user's text, so every request after the
 * first shares its prefix with the one before (the provider's prompt cache reads it). A resume
 * with other base instructions (`--system-prompt`) is a new system prompt, not a reminder.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/script.js';
import { errorLines, toolResults, useCliRig, userTexts, wireMessages } from './cli-fixtures.js';
import type { RunResult } from './harness.js';

const { rig, workspace } = useCliRig();

const git = (cwd: string, ...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8' });

function expectOk(r: RunResult): void {
  expect(errorLines(r.stderr), r.stderr).toEqual([]);
  expect(r.code).toBe(0);
}

/** `keen compact` succeeded: exit 0, and its one line on stderr says so. */
function expectCompacted(r: RunResult): void {
  expect(
    errorLines(r.stderr).filter((l) => !l.startsWith('Context compacted.')),
    r.stderr,
  ).toEqual([]);
  expect(r.code).toBe(0);
}

/** A request's messages without the cache breakpoints (they move to the newest message). */
const plainMessages = (req: RecordedRequest): unknown => JSON.parse(JSON.stringify(wireMessages(req), (key, value) => (key === 'cache_control' ? undefined : value)));

describe('a session keeps its system prompt byte-stable', () => {
  it('an edit between --continue turns: same system and tools, the fresh git status in the user message; plan mode arrives as a reminder and refuses writes', async () => {
    const ws = workspace({ 'a.txt': 'one\n' });
    git(ws.cwd, 'init', '-q', '-b', 'main');
    git(ws.cwd, 'add', '-A');
    git(ws.cwd, 'commit', '-qm', 'init');
    const from = rig.fake.requests.length;

    // Turn 1 edits a.txt through the model.
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'write_file', args: { path: 'a.txt', content: 'two\n' } } }] }, { steps: [{ text: 'Edited.' }] });
    expectOk(await rig.keen(ws, ['run', '--yolo', 'change a.txt']));
    // Between turns the user saves a project memory fact.
    fs.mkdirSync(path.join(ws.cwd, '.keen'));
    fs.writeFileSync(path.join(ws.cwd, '.keen/memory.md'), '- MEMO-FACT\n');
    rig.fake.enqueue({ steps: [{ text: 'Seen.' }] });
    expectOk(await rig.keen(ws, ['run', '--continue', 'what changed?']));
    // Turn 3 in plan mode: the write is refused.
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'write_file', args: { path: 'b.txt', content: 'b\n' } } }] }, { steps: [{ text: 'Planned.' }] });
    expectOk(await rig.keen(ws, ['run', '--continue', '--mode', 'plan', '--yolo', 'write b.txt']));
    rig.fake.enqueue({ steps: [{ text: 'Building.' }] });
    expectOk(await rig.keen(ws, ['run', '--continue', 'go on']));

    const sent = rig.since(from);
    expect(sent).toHaveLength(6);
    const [first] = sent;
    for (const req of sent.slice(1)) {
      expect(JSON.stringify(req.body.system)).toBe(JSON.stringify(first.body.system));
      expect(JSON.stringify(req.body.tools)).toBe(JSON.stringify(first.body.tools));
    }
    // Each request repeats the one before it as a prefix (only breakpoints move).
    for (let i = 1; i < sent.length; i++) {
      const before = plainMessages(sent[i - 1]) as unknown[];
      expect((plainMessages(sent[i]) as unknown[]).slice(0, before.length)).toEqual(before);
    }
    const system = JSON.stringify(first.body.system);
    expect(system).toContain('Git status:\\n## main');
    expect(system).not.toContain(' M a.txt');

    // Turn 2: the fresh git status and the memory file, ahead of the user's text.
    const second = userTexts(sent[2]).at(-1) ?? '';
    expect(second).toMatch(/^<system-reminder>\n/);
    expect(second).toContain('Git status:\n## main\n M a.txt');
    expect(second).toContain('- MEMO-FACT');
    expect(second.endsWith('</system-reminder>\n\nwhat changed?')).toBe(true);

    // Turn 3: only the mode changed; the write was refused.
    const third = userTexts(sent[3]).at(-1) ?? '';
    expect(third).toContain('# Mode\nPlan mode is on');
    expect(third).not.toContain('Git status');
    expect(third.endsWith('write b.txt')).toBe(true);
    expect(toolResults(sent[4]).at(-1)).toMatchObject({ isError: true });
    expect(toolResults(sent[4]).at(-1)?.text).toContain('Plan mode is on');
    expect(fs.existsSync(path.join(ws.cwd, 'b.txt'))).toBe(false);

    // Turn 4: build mode again, said so.
    const fourth = userTexts(sent[5]).at(-1) ?? '';
    expect(fourth).toContain('Plan mode is off');
    expect(fourth.endsWith('go on')).toBe(true);
  });

  it('an unchanged project between turns: no reminder at all', async () => {
    const ws = workspace({ 'a.txt': 'one\n' });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'One.' }] });
    expectOk(await rig.keen(ws, ['run', 'hi']));
    rig.fake.enqueue({ steps: [{ text: 'Two.' }] });
    expectOk(await rig.keen(ws, ['run', '--continue', 'again']));
    const sent = rig.since(from);
    expect(userTexts(sent[1]).at(-1)).toBe('again');
    expect(JSON.stringify(sent[1].body.system)).toBe(JSON.stringify(sent[0].body.system));
  });
  it('a resume with another --system-prompt gets a new system prompt (no reminder), kept from then on', async () => {
    const ws = workspace({ 'a.txt': 'one\n' });
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'One.' }] });
    expectOk(await rig.keen(ws, ['run', '--system-prompt', 'You are BASE-ONE.', 'hi']));
    rig.fake.enqueue({ steps: [{ text: 'Two.' }] });
    expectOk(await rig.keen(ws, ['run', '--continue', '--system-prompt', 'You are BASE-TWO.', 'again']));
    rig.fake.enqueue({ steps: [{ text: 'Three.' }] });
    expectOk(await rig.keen(ws, ['run', '--continue', '--system-prompt', 'You are BASE-TWO.', 'more']));
    // Without the flag the base instructions are Keen's own again.
    rig.fake.enqueue({ steps: [{ text: 'Four.' }] });
    expectOk(await rig.keen(ws, ['run', '--continue', 'last']));

    const sent = rig.since(from);
    expect(sent).toHaveLength(4);
    const systems = sent.map((req) => JSON.stringify(req.body.system));
    expect(systems[0]).toContain('You are BASE-ONE.');
    expect(systems[1]).toContain('You are BASE-TWO.');
    expect(systems[1]).not.toContain('BASE-ONE');
    expect(systems[2]).toBe(systems[1]);
    expect(systems[3]).toContain('You are Keen, a coding agent');
    expect(systems[3]).not.toContain('BASE-TWO');
    // The environment sections travel with the new prompt; nothing goes into a reminder.
    for (const system of systems) expect(system).toContain('# Environment');
    expect(sent.map((req) => userTexts(req).at(-1))).toEqual(['hi', 'again', 'more', 'last']);
    // The conversation itself carries over.
    expect(userTexts(sent[3])).toEqual(['hi', 'again', 'more', 'last']);
    for (const req of sent) expect(JSON.stringify(req.body.tools)).toBe(JSON.stringify(sent[0].body.tools));
  });
  it('a resume after a compaction keeps the session prompt: the next fork and turn read the cached prefix', async () => {
    const ws = workspace({ 'a.txt': 'one\n' });
    git(ws.cwd, 'init', '-q', '-b', 'main');
    git(ws.cwd, 'add', '-A');
    git(ws.cwd, 'commit', '-qm', 'init');
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'write_file', args: { path: 'a.txt', content: 'two\n' } } }] }, { steps: [{ text: 'Edited.' }] });
    expectOk(await rig.keen(ws, ['run', '--yolo', 'change a.txt']));
    rig.fake.enqueue({ steps: [{ text: '## Goal\nEdit a.txt.\n## Accomplished\nEdited.' }] });
    expectCompacted(await rig.keen(ws, ['compact', '--continue']));
    // A resume reads the transcript from the last compaction on.
    rig.fake.enqueue({ steps: [{ text: 'Seen.' }] });
    expectOk(await rig.keen(ws, ['run', '--continue', 'what changed?']));
    rig.fake.enqueue({ steps: [{ text: '## Goal\nEdit a.txt.\n## Accomplished\nSeen.' }] });
    expectCompacted(await rig.keen(ws, ['compact', '--continue']));

    const sent = rig.since(from);
    expect(sent).toHaveLength(5);
    const system = JSON.stringify(sent[0].body.system);
    expect(system).not.toContain('a.txt');
    for (const req of sent) {
      expect(JSON.stringify(req.body.system)).toBe(system);
      expect(JSON.stringify(req.body.tools)).toBe(JSON.stringify(sent[0].body.tools));
    }
    // The turn after the compaction: the fresh git status as a reminder, ahead of the user's text.
    const resumed = userTexts(sent[3]).at(-1) ?? '';
    expect(resumed).toContain('Git status:\n## main\n M a.txt');
    expect(resumed.endsWith('</system-reminder>\n\nwhat changed?')).toBe(true);
    // The second /compact is that turn's request plus the instruction: its prefix is the turn's.
    const turn = plainMessages(sent[3]) as unknown[];
    expect((plainMessages(sent[4]) as unknown[]).slice(0, turn.length)).toEqual(turn);
  });
});
