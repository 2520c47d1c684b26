/**
 * PreCompact before an automatic compaction (issue 28), end to end: the real bundle spawned
 * against the Anthropic fake in a small window, so reading a few logs crosses the threshold, with
 * a real hook script that records its input.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { isCompactionRequest } from '../kit/anthropic-wire-helpers.js';
import { runKeen } from '../e2e/harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { assertBuilt } from '../e2e/cli-fixtures.js';

const SUMMARY = '## Goal\nRead every log.\n## Accomplished\nThe logs were read.';
const TINY_MODEL = { models: { tiny: { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 1000 } }, model: 'tiny' };
const log = (n: number) => Array.from({ length: 150 }, (_, k) => `entry ${k} of log ${n}: code_${(k * 7919 + n) % 10007} ok`).join('\n');

let fake: ScriptedServer;
let ws: Workspace;
beforeAll(async () => {
  assertBuilt();
  fake = await startAnthropicFake();
});
afterAll(async () => {
  ws?.cleanup();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  ws?.cleanup();
  ws = tempWorkspace({ 'log-1.txt': log(1), 'log-2.txt': log(2), 'log-3.txt': log(3), 'log-4.txt': log(4), 'log-5.txt': log(5), 'log-6.txt': log(6) });
  let turns = 0;
  fake.setResponder((req) => {
    if (isCompactionRequest(req)) return { steps: [{ text: SUMMARY }] };
    turns++;
    if (turns > 6) return { steps: [{ text: 'Finished.' }] };
    return { steps: [{ text: `Reading log-${turns}. ` }, { toolCall: { id: `t${turns}`, name: 'read_file', args: { path: `log-${turns}.txt` } } }] };
  });
});

const root = () => path.dirname(ws.cwd);
/** The user's config: the tiny model and one PreCompact hook running `body` (its stdin appended to inputs.jsonl first). */
function withHook(body: string): void {
  const file = path.join(root(), 'pre-compact.sh');
  fs.writeFileSync(file, `#!/bin/sh\ncat >> '${root()}/inputs.jsonl'\necho >> '${root()}/inputs.jsonl'\n${body}\n`);
  const hooks = { PreCompact: [{ matcher: 'auto', hooks: [{ type: 'command', command: `sh '${file}'` }] }] };
  fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ ...TINY_MODEL, hooks }));
}
const inputs = () =>
  fs
    .readFileSync(path.join(root(), 'inputs.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const keen = (args: string[]) => runKeen(args, { cwd: ws.cwd, home: ws.home, env: { ANTHROPIC_API_KEY: 'sk-e2e-key-000', ANTHROPIC_BASE_URL: fake.url } });
const events = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('PreCompact before an automatic compaction', () => {
  it('runs with trigger "auto" and empty custom_instructions; exit 0 lets the compaction run', async () => {
    withHook('exit 0');
    const r = await keen(['run', '--yolo', '--format', 'json', 'Read every log.']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).compactions).toBeGreaterThanOrEqual(1);
    expect(fake.requests.some(isCompactionRequest)).toBe(true);
    const [first] = inputs();
    expect(first).toMatchObject({ hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '', cwd: ws.cwd });
    expect(first.session_id).toMatch(/\S/);
  });

  it('a block (exit 2) skips the compaction: no summary request, one line with the reason, the turn goes on, and it is not asked again every request', async () => {
    withHook('echo "no compaction during the audit" >&2\nexit 2');
    const r = await keen(['run', '--yolo', '--format', 'stream-json', 'Read every log.']);
    expect(r.code).toBe(0);
    expect(fake.requests.some(isCompactionRequest)).toBe(false);
    const failed = events(r.stdout).filter((e) => e.type === 'compaction' && e.subtype === 'failed');
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed[0].reason).toBe('blocked by a PreCompact hook: no compaction during the audit');
    expect(events(r.stdout).at(-1)).toMatchObject({ type: 'result' });
    expect(r.stdout).toContain('Finished.');
    // Counted as a failed attempt: the back-off keeps it from running before every request.
    const overThreshold = fake.requests.length;
    expect(inputs().length).toBe(failed.length);
    expect(inputs().length).toBeLessThan(overThreshold - 2);
  });

  it('a JSON {"decision":"block"} answer blocks as exit 2 does', async () => {
    withHook('echo \'{"decision":"block","reason":"not now"}\'');
    const r = await keen(['run', '--yolo', '--format', 'stream-json', 'Read every log.']);
    expect(r.code).toBe(0);
    expect(fake.requests.some(isCompactionRequest)).toBe(false);
    const failed = events(r.stdout).filter((e) => e.type === 'compaction' && e.subtype === 'failed');
    expect(failed[0]?.reason).toBe('blocked by a PreCompact hook: not now');
  });
});
