import fs from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { isCompactionRequest, stripCache } from '../kit/anthropic-wire-helpers.js';
import { runKeen } from './harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';

const SUMMARY = '## Goal\nRead every log.\n## Accomplished\nlog-1 and log-2 read.';
const TINY_MODEL = { models: { tiny: { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 1000 } }, model: 'tiny' };
const log = (n: number) => Array.from({ length: 150 }, (_, k) => `entry ${k} of log ${n}: code_${(k * 7919 + n) % 10007} ok`).join('\n');

let fake: ScriptedServer;
let ws: Workspace;
beforeAll(async () => {
  fake = await startAnthropicFake();
});
afterAll(async () => {
  ws?.cleanup();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.setResponder(undefined);
  ws?.cleanup();
  ws = tempWorkspace({ '.keen/config.json': JSON.stringify(TINY_MODEL), 'log-1.txt': log(1), 'log-2.txt': log(2), 'log-3.txt': log(3), 'log-4.txt': log(4) });
});

const env = () => ({ ANTHROPIC_API_KEY: 'sk-e2e-key-000', ANTHROPIC_BASE_URL: fake.url });
const keen = (args: string[]) => runKeen(args, { cwd: ws.cwd, home: ws.home, env: env() });

function readerAgent(reads: number, summary: (req: any) => any = () => ({ steps: [{ text: SUMMARY }] })) {
  let turns = 0;
  fake.setResponder((req) => {
    if (isCompactionRequest(req)) return summary(req);
    turns++;
    if (turns > reads) return { steps: [{ text: 'Finished.' }] };
    return { steps: [{ text: `Reading log-${turns}. ` }, { toolCall: { id: `t${turns}`, name: 'read_file', args: { path: `log-${turns}.txt` } } }] };
  });
}

describe('keen run with automatic compaction', () => {
  it('prints pre- and post-compaction text once, persists the batch, and --session resumes from the replacement', async () => {
    readerAgent(4);
    const r = await keen(['run', '--format', 'json', 'Read every log.']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.compactions).toBe(1);
    expect(out.result).toBe('Reading log-1. \nReading log-2. \nReading log-3. \nReading log-4. \nFinished.');
    expect(out.result).not.toContain('Read every log.\n## Accomplished'); // the private summary is not output

    const transcript = fs.readFileSync(
      fs.readdirSync(`${ws.home}/sessions`, { recursive: true, withFileTypes: true }).find((d) => d.name === 'transcript_events.jsonl')!.parentPath + '/transcript_events.jsonl',
      'utf8',
    );
    const recs = transcript
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const i = recs.findIndex((x) => x.kind === 'compaction_applied');
    expect(recs[i - 1]).toMatchObject({ kind: 'assistant_turn', checkpoint: true });
    expect(recs[i - 1].batch.count).toBe(2);
    expect(JSON.stringify(recs)).not.toContain('sk-e2e-key-000');

    fake.requests.length = 0;
    fake.setResponder(() => ({ steps: [{ text: 'Resumed.' }] }));
    const again = await keen(['run', '--session', out.session_id, 'And now?']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('Resumed.\n');
    const msgs = stripCache(fake.requests[0].body.messages);
    expect(msgs[0].content[0].text).toContain('<compacted_context>');
    expect(msgs[0].content[0].text).toContain(SUMMARY);
    expect(JSON.stringify(msgs)).not.toContain('entry 5 of log 1'); // the pre-compaction tool output is gone
    expect(msgs.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'And now?' }] });
  });

  it('text format streams the same text; a failing parent after compaction still writes the partial result', async () => {
    let turns = 0;
    fake.setResponder((req) => {
      if (isCompactionRequest(req)) return { steps: [{ text: SUMMARY }] };
      turns++;
      if (turns > 4) return { error: { status: 401, message: 'invalid x-api-key' } };
      return { steps: [{ text: `Step ${turns}. ` }, { toolCall: { id: `t${turns}`, name: 'read_file', args: { path: `log-${turns}.txt` } } }] };
    });
    const r = await keen(['run', 'Read every log.']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('Step 1. \nStep 2. \nStep 3. \nStep 4. \n');
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^keen: .*(auth|key|401)/i);
    expect(lines).toHaveLength(2); // the error, then the resume hint
  });
});

describe('keen compact (headless manual compaction)', () => {
  it('streams the summary, persists it, and the next run sends system + summary + new message', async () => {
    fake.enqueue({ steps: [{ text: 'Hello there.' }] });
    const first = await keen(['run', '--format', 'json', 'Say hello.']);
    const id = JSON.parse(first.stdout).session_id;

    fake.enqueue({ steps: [{ text: SUMMARY }] });
    const c = await keen(['compact', '--session', id, 'keep the greeting']);
    expect(c.code).toBe(0);
    expect(c.stdout).toBe(`${SUMMARY}\n`);
    expect(JSON.stringify(fake.requests[1].body.messages.at(-1))).toContain('keep the greeting');

    fake.enqueue({ steps: [{ text: 'ok' }] });
    await keen(['run', '--session', id, 'Next.']);
    const next = fake.requests[2].body;
    expect(next.system[0].text).toContain('You are Keen');
    expect(stripCache(next.messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: `<compacted_context>\n${SUMMARY}\n</compacted_context>` }] },
      // The default verbatim tail (compaction.keepRecentTokens) keeps the newest message, at most half the history.
      { role: 'assistant', content: [{ type: 'text', text: 'Hello there.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Next.' }] },
    ]);
  });

  it('text format says on stderr when an automatic compaction fails, and carries on', async () => {
    readerAgent(4, () => ({ error: { status: 400, message: 'summary refused for x-api-key sk-e2e-key-000' } }));
    const r = await keen(['run', 'Read every log.']);
    const line = r.stderr.split('\n').find((l) => l.startsWith('keen: automatic compaction failed:'));
    expect(line).toMatch(/summary refused for x-api-key \[REDACTED\]\); continuing without it$/);
    expect(r.stdout).toContain('Finished.');
    expect(r.code).toBe(0);
    expect(r.stderr + r.stdout).not.toContain('sk-e2e-key-000');
  });

  it('a compaction whose request fails with an error quoting the key never prints the key', async () => {
    fake.enqueue({ steps: [{ text: 'Hello.' }] });
    const id = JSON.parse((await keen(['run', '--format', 'json', 'Hi.'])).stdout).session_id;
    fake.enqueue({ error: { status: 400, message: 'bad request for x-api-key sk-e2e-key-000' } });
    const c = await keen(['compact', '--session', id]);
    expect(c.code).not.toBe(0);
    expect(c.stderr).toMatch(/^keen: compaction failed: .*bad request/);
    expect(c.stderr + c.stdout).not.toContain('sk-e2e-key-000');
  });

  it('a failed compaction exits non-zero and leaves the transcript unchanged', async () => {
    fake.enqueue({ steps: [{ text: 'Hello.' }] });
    const id = JSON.parse((await keen(['run', '--format', 'json', 'Hi.'])).stdout).session_id;
    const file = fs.readdirSync(`${ws.home}/sessions`, { recursive: true, withFileTypes: true }).find((d) => d.name === 'transcript_events.jsonl')!;
    const p = `${file.parentPath}/transcript_events.jsonl`;
    const before = fs.readFileSync(p, 'utf8');
    fake.enqueue({ steps: [{ text: '' }] });
    const c = await keen(['compact', '--session', id]);
    expect(c.code).not.toBe(0);
    expect(c.stderr).toMatch(/^keen: compaction failed: .*empty.*unchanged/);
    expect(fs.readFileSync(p, 'utf8')).toBe(before);
  });
});
