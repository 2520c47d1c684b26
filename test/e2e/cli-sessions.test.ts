/**
 * Sessions end to end: a headless run persists its turn, and `--session`, `--continue` and the
 * `--resume <id>` carry the stored history to the next request the model sees.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/script.js';
import { blocksOf, errorLines, FAKE_KEY, filesUnder, resumeIdOf, useCliRig, toolResults, userTexts, wireMessages } from './cli-fixtures.js';
import type { RunResult } from './harness.js';
import type { Workspace } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

/** `[role, block types]` per message: the shape of the history the model was sent. */
function shape(req: RecordedRequest): string[] {
  return wireMessages(req).map(
    (m) =>
      `${m.role}:${blocksOf(m)
        .map((b) => b.type)
        .join(',')}`,
  );
}

function expectOk(r: RunResult): void {
  expect(errorLines(r.stderr), r.stderr).toEqual([]);
  expect(r.code).toBe(0);
}

function expectOneLine(r: RunResult): string {
  expect(r.code).not.toBe(0);
  expect(r.code).not.toBeNull();
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  return lines[0];
}

describe('resuming a session', () => {
  let ws: Workspace;
  let id: string;

  beforeAll(async () => {
    ws = workspace({ 'README.md': '# Demo project\n' });
    rig.fake.enqueue({ steps: [{ text: 'Reading it.' }, { toolCall: { name: 'read_file', args: { path: 'README.md' } } }] }, { steps: [{ text: 'It is a demo project.' }] });
    const r = await rig.keen(ws, ['run', '--format', 'json', 'what is this project?']);
    expectOk(r);
    id = JSON.parse(r.stdout).session_id;
    // A run that succeeded prints no "to continue" hint: stderr stays empty for scripts.
    expect(resumeIdOf(r.stderr)).toBeUndefined();
    expect(r.stderr).toBe('');
  });

  it('`keen run --session <id>` sends the first run history: user, assistant with tool call, tool result, answer', async () => {
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Second answer.' }] });

    const r = await rig.keen(ws, ['run', '--session', id, '--format', 'json', 'and who wrote it?']);

    expectOk(r);
    const out = JSON.parse(r.stdout);
    expect(out.session_id).toBe(id);
    expect(out.result).toBe('Second answer.');
    const [req] = rig.since(from);
    expect(shape(req)).toEqual(['user:text', 'assistant:text,tool_use', 'user:tool_result', 'assistant:text', 'user:text']);
    expect(userTexts(req)).toEqual(['what is this project?', 'and who wrote it?']);
    expect(toolResults(req)[0].text).toContain('# Demo project');
    const assistant = wireMessages(req)
      .filter((m) => m.role === 'assistant')
      .flatMap(blocksOf);
    expect(assistant.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'read_file', input: { path: 'README.md' } });
    expect(assistant.filter((b) => b.type === 'text').map((b) => b.text)).toEqual(['Reading it.', 'It is a demo project.']);
  });

  it('`keen run --continue` picks the latest session of the directory', async () => {
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Third answer.' }] });

    const r = await rig.keen(ws, ['run', '--continue', '--format', 'json', 'one more thing']);

    expectOk(r);
    expect(JSON.parse(r.stdout).session_id).toBe(id);
    const [req] = rig.since(from);
    expect(userTexts(req)).toEqual(['what is this project?', 'and who wrote it?', 'one more thing']);
  });

  it('`keen --resume <id> -p` and `keen -r <id> -p` resume that session headless', async () => {
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Fourth.' }] });

    const r = await rig.keen(ws, ['--resume', id, '-p', 'via the hint']);

    expectOk(r);
    expect(r.stdout).toBe('Fourth.\n');
    expect(r.stderr).toBe('');
    const [req] = rig.since(from);
    expect(userTexts(req)).toEqual(['what is this project?', 'and who wrote it?', 'one more thing', 'via the hint']);
  });

  it('`keen sessions` lists the session with its first prompt and turn count', async () => {
    const r = await rig.keen(ws, ['sessions']);
    expectOk(r);
    const row = r.stdout.split('\n').find((l) => l.startsWith(id));
    expect(row, r.stdout).toBeDefined();
    expect(row).toContain('what is this project?');
    expect(row).toMatch(/\s4\s/);
    expect(r.stdout.split('\n')[0]).toMatch(/^ID\s/);
  });

  it('another directory does not list it, `--all` does, and `--session` there says where it belongs', async () => {
    const elsewhere = { ...workspace(), home: ws.home };
    const mine = await rig.keen(elsewhere, ['sessions']);
    expectOk(mine);
    expect(mine.stdout).not.toContain(id);
    const all = await rig.keen(elsewhere, ['sessions', '--all']);
    expectOk(all);
    expect(all.stdout).toContain(id);
    expect(all.stdout).toContain(ws.cwd);

    const from = rig.fake.requests.length;
    const line = expectOneLine(await rig.keen(elsewhere, ['run', '--session', id, 'hi']));
    expect(line).toContain(id);
    expect(line).toContain(ws.cwd);
    expect(line).toContain('keen sessions');
    expect(rig.since(from)).toHaveLength(0);
  });

  it('session files are private: directories 0700, files 0600', () => {
    const files = filesUnder(path.join(ws.home, 'sessions'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect((fs.statSync(file).mode & 0o777).toString(8), file).toBe('600');
      expect((fs.statSync(path.dirname(file)).mode & 0o777).toString(8), path.dirname(file)).toBe('700');
    }
  });
});

describe('a damaged transcript', () => {
  it('a torn last line: the session still resumes, one warning on stderr, the torn bytes kept aside', async () => {
    const ws = workspace();
    rig.fake.enqueue({ steps: [{ text: 'First.' }] });
    const first = await rig.keen(ws, ['run', '--format', 'json', 'start']);
    expectOk(first);
    const id = JSON.parse(first.stdout).session_id as string;
    const transcript = filesUnder(ws.home).find((f) => f.endsWith(path.join(id, 'transcript_events.jsonl')))!;
    const torn = '{"seq":99,"kind":"user_mess';
    fs.appendFileSync(transcript, torn);

    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Second.' }] });
    const r = await rig.keen(ws, ['run', '--session', id, 'next']);

    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Second.\n');
    const warnings = errorLines(r.stderr);
    expect(warnings, r.stderr).toHaveLength(1);
    expect(warnings[0]).toMatch(/^keen: warning: /);
    expect(userTexts(rig.since(from)[0])).toEqual(['start', 'next']);
    const kept = filesUnder(path.dirname(transcript))
      .filter((f) => f !== transcript)
      .map((f) => fs.readFileSync(f, 'utf8'));
    expect(kept.join('')).toContain(torn);
    // Every line of the transcript is whole JSON again, and a third run sees no damage.
    for (const line of fs.readFileSync(transcript, 'utf8').trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    rig.fake.enqueue({ steps: [{ text: 'Third.' }] });
    const third = await rig.keen(ws, ['run', '--continue', 'again']);
    expectOk(third);
  });
});

describe('bad session ids', () => {
  it('an unknown id: one line saying so and how to list sessions, non-zero, nothing sent', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    const line = expectOneLine(await rig.keen(ws, ['run', '--session', '20240101-000000-abcdef', 'hi']));
    expect(line).toMatch(/^keen: .*20240101-000000-abcdef/);
    expect(line).toContain('keen sessions');
    expect(rig.since(from)).toHaveLength(0);
    expect(filesUnder(path.join(ws.home, 'sessions'))).toEqual([]);
  });

  it('a malformed id: one line naming it and how to list sessions, non-zero', async () => {
    const ws = workspace();
    for (const args of [
      ['run', '--session', '../../etc', 'hi'],
      ['--resume', 'not-an-id', '-p', 'hi'],
    ]) {
      const line = expectOneLine(await rig.keen(ws, args));
      expect(line).toMatch(/is not a session id/);
      expect(line).toContain('keen sessions');
    }
    expect(fs.existsSync(path.join(ws.home, 'sessions'))).toBe(false);
  });

  it('`--continue` with no session in the directory: one line, non-zero', async () => {
    const ws = workspace();
    const line = expectOneLine(await rig.keen(ws, ['run', '--continue', 'hi']));
    expect(line).toMatch(/no session to continue/);
  });

  it('`keen sessions` in a fresh directory says there are none', async () => {
    const ws = workspace();
    const r = await rig.keen(ws, ['sessions']);
    expectOk(r);
    expect(r.stdout).toMatch(/No sessions/);
  });
});

describe('secrets', () => {
  it('the API key never reaches any file under KEEN_HOME, even when a tool prints it and the model repeats it', async () => {
    const ws = workspace();
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: 'echo "key=$ANTHROPIC_API_KEY"' } } }] }, { steps: [{ text: `Your key is ${FAKE_KEY}.` }] });
    const first = await rig.keen(ws, ['run', '--yolo', `remember ${FAKE_KEY} for me`]);
    expectOk(first);
    rig.fake.enqueue({ steps: [{ text: 'Still here.' }] });
    expectOk(await rig.keen(ws, ['run', '--continue', 'go on']));

    const files = filesUnder(ws.home);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(fs.readFileSync(file, 'utf8'), file).not.toContain(FAKE_KEY);
    // The transcript still holds the turn, with the secret masked.
    const transcript = files.find((f) => f.endsWith('transcript_events.jsonl'));
    expect(fs.readFileSync(transcript!, 'utf8')).toContain('[REDACTED]');
  });
});
