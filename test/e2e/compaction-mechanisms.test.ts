/**
 * The compaction mechanisms end to end: spawned `keen run` / `keen compact` against the Anthropic
 * loopback fake (the cross-provider versions are in test/providers/compaction-conformance.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateText } from '../../src/tokens/token-estimator.js';
import { SUMMARISER_SYSTEM_PROMPT } from '../../src/compaction/prompts.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { FakeReply, RecordedRequest } from '../fakes/script.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { isCompactionRequest, stripCache } from '../kit/anthropic-wire-helpers.js';
import { assertBuilt } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { prose as kitProse } from '../kit/prose.js';

const SUMMARY = '## Goal\nRead every log.\n## Accomplished\nLogs read.';
const log = (n: number, lines = 150) => Array.from({ length: lines }, (_, k) => `entry ${k} of log ${n}: code_${(k * 7919 + n) % 10007} ok`).join('\n');
const model = (contextWindow: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    models: { tiny: { provider: 'anthropic', contextWindow, maxOutputTokens: 1000 }, ...((extra.models as object) ?? {}) },
    model: 'tiny',
    ...extra,
    ...(extra.models ? { models: { tiny: { provider: 'anthropic', contextWindow, maxOutputTokens: 1000 }, ...(extra.models as object) } } : {}),
  });

let fake: ScriptedServer;
const workspaces: Workspace[] = [];
beforeAll(async () => {
  assertBuilt();
  fake = await startAnthropicFake();
});
afterAll(async () => {
  await fake.close();
  for (const ws of workspaces) ws.cleanup();
});

const prose = (n: number, lines: number) => kitProse('log', n, lines);

function workspace(config: string, files = 16, lines = 150, text: (n: number, lines: number) => string = log): Workspace {
  const entries: Record<string, string> = { '.keen/config.json': config };
  for (let i = 1; i <= files; i++) entries[`log-${i}.txt`] = text(i, lines);
  const ws = tempWorkspace(entries);
  workspaces.push(ws);
  fake.requests.length = 0;
  fake.setResponder(undefined);
  return ws;
}

const keen = (ws: Workspace, args: string[]) =>
  runKeen(args, { cwd: ws.cwd, home: ws.home, env: { ANTHROPIC_API_KEY: 'sk-e2e-key-000', ANTHROPIC_BASE_URL: fake.url }, timeoutMs: 60_000 });

/** The agent reads log-1 … log-`reads`, one per request, then answers. Compaction requests go to `summary`. */
function reader(reads: number, summary: (req: RecordedRequest, k: number) => FakeReply, offset = 0, final = 'Finished.') {
  let turns = 0;
  let k = 0;
  fake.setResponder((req) => {
    if (isCompactionRequest(req)) return summary(req, ++k);
    turns++;
    if (turns > reads) return { steps: [{ text: final }] };
    const n = offset + turns;
    return { steps: [{ text: `Reading log-${n}. ` }, { toolCall: { id: `t${n}`, name: 'read_file', args: { path: `log-${n}.txt` } } }] };
  });
}

const compactions = () => fake.requests.filter(isCompactionRequest);
const parents = () => fake.requests.filter((r) => !isCompactionRequest(r));
const systemText = (req: RecordedRequest) => (req.body.system ?? []).map((b: any) => b.text).join('');
const onlyUserText = (req: RecordedRequest) => req.body.messages[0].content.map((b: any) => b.text).join('');

function transcript(ws: Workspace): any[] {
  const dir = fs.readdirSync(`${ws.home}/sessions`, { recursive: true, withFileTypes: true }).find((d) => d.name === 'transcript_events.jsonl')!;
  return fs
    .readFileSync(path.join(dir.parentPath, dir.name), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('the summary request always fits', () => {
  it('keen compact on a session twice the window succeeds via the budgeted document, in one summary request that fits', async () => {
    const ws = workspace(JSON.stringify({ models: { tiny: { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 1000 } }, model: 'tiny', compaction: { auto: false } }));
    reader(16, () => ({ steps: [{ text: 'unused' }] }));
    const run = await keen(ws, ['run', '--format', 'json', 'Read every log.']);
    expect(run.code).toBe(0);
    const id = JSON.parse(run.stdout).session_id;
    const biggest = JSON.stringify(parents().at(-1)!.body).length / 4;
    expect(biggest).toBeGreaterThan(24_000); // the session is about twice the 12,000-token window

    fake.requests.length = 0;
    fake.setResponder((req) => (isCompactionRequest(req) ? { steps: [{ text: SUMMARY }] } : { steps: [{ text: 'ok' }] }));
    const c = await keen(ws, ['compact', '--session', id]);
    expect(c.code).toBe(0);
    expect(c.stdout).toBe(`${SUMMARY}\n`);
    const sent = compactions();
    expect(sent).toHaveLength(1);
    const req = sent[0];
    expect(systemText(req)).toBe(SUMMARISER_SYSTEM_PROMPT);
    expect(req.body.tools ?? []).toEqual([]);
    expect(req.body.messages).toHaveLength(1);
    const doc = onlyUserText(req);
    expect(doc).toMatch(/<conversation>[\s\S]*<\/conversation>/);
    expect(doc).toMatch(/characters cut/);
    expect(doc).toMatch(/\[\d+ earlier messages omitted to fit the summariser window\]/);
    // It fits: the estimate of what was sent plus the output limit stays inside the 12,000-token window.
    expect(estimateText(SUMMARISER_SYSTEM_PROMPT) + estimateText(doc) + req.body.max_tokens).toBeLessThanOrEqual(12_000);

    fake.requests.length = 0;
    await keen(ws, ['run', '--session', id, 'Next.']);
    const first = stripCache(fake.requests[0].body.messages);
    const head = first[0].content[0].text as string;
    expect(head.startsWith(`<compacted_context>\n${SUMMARY}\n\n<artifact_index>`)).toBe(true);
    expect(head).toContain('- artifact#1 read_file {"path":"log-1.txt"} · ');
    // The verbatim tail follows the summary; the newest tool output before it is in the document, whole messages are never split.
    // (The tail is capped at a quarter of the 7,904-token input budget here, so it may hold only the final answer.)
    const tailLogs = [...JSON.stringify(first.slice(1, -1)).matchAll(/entry 149 of log (\d+)/g)].map((m) => Number(m[1]));
    expect(first.length).toBeGreaterThan(2);
    expect(first[1].role).toBe('assistant'); // the tail never starts with a tool result (a user turn on the wire)
    expect(JSON.stringify(first[first.length - 2])).toContain('Finished.');
    const newestSummarised = (tailLogs.length ? Math.min(...tailLogs) : 17) - 1;
    expect(doc).toContain(`entry 149 of log ${newestSummarised}`);
  }, 60_000);

  it('a context-length refusal of the nested request falls back to the document and succeeds, within 4 summary requests', async () => {
    const ws = workspace(model(12_000));
    reader(4, (_req, k) => (k === 1 ? { error: { status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' } } : { steps: [{ text: SUMMARY }] }));
    const r = await keen(ws, ['run', '--format', 'json', 'Read every log.']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.compactions).toBe(1);
    const sent = compactions();
    expect(sent).toHaveLength(2);
    expect(systemText(sent[0])).toContain('You are Keen'); // the cache-parity fork first
    expect(systemText(sent[1])).toBe(SUMMARISER_SYSTEM_PROMPT); // then the budgeted document
    const after = parents()[parents().indexOf(parents().find((p) => fake.requests.indexOf(p) > fake.requests.indexOf(sent[1]))!)];
    expect(JSON.stringify(after.body.messages)).toContain(SUMMARY.split('\n')[1]);
  }, 60_000);

  it('a provider that refuses every summary for length gets at most 4 requests, each shorter; the turn goes on', async () => {
    const ws = workspace(model(13_000));
    reader(4, () => ({ error: { status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' } }));
    const r = await keen(ws, ['run', '--format', 'json', 'Read every log.']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toContain('Finished.');
    const sent = compactions();
    // Each failed attempt is ≤ 4 requests (fork, document, halved, halved…); at most 3 attempts per turn.
    const attempts: RecordedRequest[][] = [];
    for (const req of sent) {
      if (systemText(req).includes('You are Keen')) attempts.push([]);
      attempts.at(-1)!.push(req);
    }
    expect(attempts.length).toBeGreaterThan(0);
    for (const a of attempts) {
      expect(a.length).toBeLessThanOrEqual(4);
      const docs = a.slice(1).map((q) => onlyUserText(q).length);
      for (let i = 1; i < docs.length; i++) expect(docs[i]).toBeLessThan(docs[i - 1]);
    }
  }, 60_000);

  it('a context-length error on a normal turn names the way out in one line and starts no compaction', async () => {
    const ws = workspace(model(200_000));
    fake.setResponder(() => ({ error: { status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' } }));
    const r = await keen(ws, ['run', 'Hello.']);
    expect(r.code).toBe(1);
    const line = r.stderr.split('\n')[0];
    const id = /keen run --session (\S+)`/.exec(r.stderr)![1];
    expect(line).toMatch(/^keen: .*too long.*\/compact.*`keen compact --session /);
    expect(line).toContain(`keen compact --session ${id}`);
    expect(compactions()).toHaveLength(0);
  }, 60_000);
});

describe('failures that cannot loop', () => {
  it('a stream cut mid-summary is retried once, and nothing of the cut summary is kept', async () => {
    const ws = workspace(model(12_000));
    reader(4, (_req, k) => (k === 1 ? { steps: [{ text: '## Goal\nPARTIAL-CUT' }, { cut: true }] } : { steps: [{ text: SUMMARY }] }));
    const r = await keen(ws, ['run', '--format', 'json', 'Read every log.']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).compactions).toBe(1);
    const sent = compactions();
    expect(sent).toHaveLength(2);
    expect(stripCache(sent[1].body)).toEqual(stripCache(sent[0].body)); // the same request again
    expect(JSON.stringify(transcript(ws))).not.toContain('PARTIAL-CUT');
  }, 60_000);
});

describe('summaries that do not decay', () => {
  it('three consecutive compactions leave one merged summary (level 2) carrying facts from all three', async () => {
    const ws = workspace(model(200_000));
    fake.setResponder((req) => {
      if (!isCompactionRequest(req)) return { steps: [{ text: `Noted ${JSON.stringify(req.body.messages.at(-1).content).match(/FACT-\d/)?.[0] ?? ''}.` }] };
      const all = JSON.stringify(req.body.messages);
      const inPrevious = [...(all.match(/<compacted_context>[\s\S]*?<\/compacted_context>/)?.[0] ?? '').matchAll(/FACT-\d/g)].map((m) => m[0]);
      const fresh = [...all.matchAll(/remember (FACT-\d)/g)].map((m) => m[1]);
      return { steps: [{ text: `## Goal\nKeep facts.\n## Discoveries\n${[...new Set([...inPrevious, ...fresh])].join('\n')}` }] };
    });
    const first = await keen(ws, ['run', '--format', 'json', 'remember FACT-1']);
    const id = JSON.parse(first.stdout).session_id;
    for (const n of [1, 2, 3]) {
      if (n > 1) expect((await keen(ws, ['run', '--session', id, `remember FACT-${n}`])).code).toBe(0);
      const c = await keen(ws, ['compact', '--session', id]);
      expect(c.code).toBe(0);
    }
    const sent = compactions();
    expect(sent).toHaveLength(3);
    expect(JSON.stringify(sent[0].body.messages.at(-1))).not.toContain('MERGE it with');
    expect(JSON.stringify(sent[1].body.messages.at(-1))).toContain('MERGE it with');
    expect(JSON.stringify(sent[2].body.messages.at(-1))).toContain('MERGE it with');

    const applied = transcript(ws).filter((r) => r.kind === 'compaction_applied');
    expect(applied.map((r) => r.messages[0].summary_level)).toEqual([1, 2, 2]);
    fake.requests.length = 0;
    await keen(ws, ['run', '--session', id, 'What do you know?']);
    const msgs = stripCache(fake.requests[0].body.messages);
    const wire = JSON.stringify(msgs);
    expect(wire.match(/<compacted_context>/g)).toHaveLength(1); // one summary at the head, never a stack
    expect(msgs[0].content[0].text).toMatch(/^<compacted_context>[\s\S]*FACT-1[\s\S]*FACT-2[\s\S]*FACT-3/);
  }, 90_000);
});

describe('compaction settings', () => {
  it('compaction.model is the model the summary request names, and its usage counts in keen run JSON', async () => {
    const ws = workspace(
      JSON.stringify({
        models: {
          tiny: { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 1000 },
          cheap: { provider: 'anthropic', id: 'cheap-summariser-1', contextWindow: 50_000, maxOutputTokens: 2000 },
        },
        model: 'tiny',
        compaction: { model: 'cheap', instructions: 'Always list the log numbers.' },
      }),
    );
    reader(4, () => ({ steps: [{ text: SUMMARY }], usage: { input: 4321, output: 765 } }));
    const r = await keen(ws, ['run', '--format', 'json', 'Read every log.']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.compactions).toBe(1);
    const sent = compactions();
    expect(sent).toHaveLength(1);
    expect(sent[0].body.model).toBe('cheap-summariser-1');
    expect(systemText(sent[0])).toBe(SUMMARISER_SYSTEM_PROMPT);
    expect(onlyUserText(sent[0])).toContain('Always list the log numbers.');
    for (const p of parents()) expect(p.body.model).toBe('tiny');
    expect(out.usage.output).toBeGreaterThanOrEqual(765); // the summariser's spend is in the total
    expect(out.usage.input).toBeGreaterThanOrEqual(4321);
  }, 60_000);

  it('an unknown compaction.model is a one-line error naming the key, and no session is left behind', async () => {
    const ws = workspace(JSON.stringify({ compaction: { model: 'no-such-model' } }));
    const r = await keen(ws, ['run', 'Hi.']);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/compaction\.model "no-such-model"/);
    expect(fs.existsSync(`${ws.home}/sessions`) ? fs.readdirSync(`${ws.home}/sessions`, { recursive: true }).filter((f) => String(f).endsWith('.jsonl')) : []).toEqual([]);
  }, 30_000);

  it('compaction.auto false: no automatic compaction, no prune, however big the context gets', async () => {
    const ws = workspace(JSON.stringify({ models: { tiny: { provider: 'anthropic', contextWindow: 12_000, maxOutputTokens: 1000 } }, model: 'tiny', compaction: { auto: false } }));
    reader(6, () => ({ steps: [{ text: SUMMARY }] }));
    const r = await keen(ws, ['run', '--format', 'json', 'Read every log.']);
    expect(JSON.parse(r.stdout).compactions).toBe(0);
    expect(compactions()).toHaveLength(0);
  }, 60_000);

  it('a bad compaction key is a one-line config error', async () => {
    const ws = workspace(JSON.stringify({ compaction: { keepRecentTokens: -5 } }));
    const r = await keen(ws, ['run', 'Hi.']);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/compaction\.keepRecentTokens/);
  }, 30_000);
});

describe('keep what is recent, evict what is bulky, and let the model get it back', () => {
  it('prunes old outputs to artifact handles, recall brings one back in full, and a resumed session sends exactly the last request', async () => {
    // ~9,900 tokens per file; the threshold (0.85 × 114,000 = 96,900) is crossed after the tenth read.
    const ws = workspace(
      JSON.stringify({ models: { mid: { provider: 'anthropic', contextWindow: 120_000, maxOutputTokens: 1000 } }, model: 'mid', compaction: { threshold: 0.85 } }),
      10,
      400,
      prose,
    );
    const read = (n: number): FakeReply => ({ steps: [{ toolCall: { id: `r${n}`, name: 'read_file', args: { path: `log-${n}.txt` } } }] });
    fake.enqueue(read(1), read(2), read(3), read(4), { steps: [{ text: 'Done one.' }] });
    const one = await keen(ws, ['run', '--format', 'json', 'turn one']);
    const id = JSON.parse(one.stdout).session_id;
    fake.enqueue(read(5), read(6), read(7), read(8), { steps: [{ text: 'Done two.' }] });
    expect((await keen(ws, ['run', '--session', id, 'turn two'])).code).toBe(0);
    const mark = fake.requests.length;
    fake.enqueue(read(9), read(10), { steps: [{ toolCall: { id: 'rc', name: 'recall', args: { artifact: 'artifact#2' } } }] }, { steps: [{ text: 'Recalled.' }] });
    const three = await keen(ws, ['run', '--format', 'json', '--session', id, 'turn three']);
    expect(three.code).toBe(0);
    expect(JSON.parse(three.stdout).compactions).toBe(1);
    expect(compactions()).toHaveLength(0); // pruning alone was enough: no summary request

    const turn3 = fake.requests.slice(mark);
    expect(turn3).toHaveLength(4);
    const beforePrune = JSON.stringify(turn3[1].body.messages);
    const afterPrune = JSON.stringify(turn3[2].body.messages);
    expect(beforePrune).toContain('entry 300 of log 2:');
    expect(afterPrune).not.toContain('entry 300 of log 2:'); // log-2's output left the request …
    expect(afterPrune).toContain('[artifact#2] read_file {\\"path\\":\\"log-2.txt\\"} · '); // … replaced by its handle
    expect(afterPrune).toContain('entry 300 of log 10:'); // the newest outputs are protected
    expect(afterPrune).toContain('entry 300 of log 5:'); // so are the last two user turns
    // The recall result carries log-2's full content back to the model.
    const recalled = turn3[3].body.messages.at(-1).content.find((b: any) => b.type === 'tool_result');
    const text = typeof recalled.content === 'string' ? recalled.content : recalled.content.map((c: any) => c.text).join('');
    expect(text).toContain('entry 0 of log 2:');
    expect(text).toContain('entry 399 of log 2:');

    // Artifacts: stored once each, numbered per session, 0600; the prune is a record of its own.
    const sessionDir = path.dirname(
      fs.readdirSync(`${ws.home}/sessions`, { recursive: true, withFileTypes: true }).find((d) => d.name === 'transcript_events.jsonl')!.parentPath + '/x',
    );
    const artifacts = fs.readdirSync(path.join(sessionDir, 'artifacts')).sort((a, b) => parseInt(a) - parseInt(b));
    expect(artifacts).toEqual(['1.txt', '2.txt', '3.txt', '4.txt', '5.txt', '6.txt', '7.txt', '8.txt', '9.txt', '10.txt']);
    expect(fs.statSync(path.join(sessionDir, 'artifacts', '2.txt')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(sessionDir, 'artifacts')).mode & 0o777).toBe(0o700);
    expect(fs.readFileSync(path.join(sessionDir, 'artifacts', '2.txt'), 'utf8')).toBe(text);
    const prunes = transcript(ws).filter((r) => r.kind === 'prune_applied');
    expect(prunes).toHaveLength(1);
    expect(prunes[0].pruned.map((p: any) => p.artifact)).toEqual([1, 2, 3, 4]);

    // Resume: the first request starts with exactly the messages of the last request before exit.
    const last = fake.requests.at(-1)!.body;
    fake.enqueue({ steps: [{ text: 'Bye.' }] });
    expect((await keen(ws, ['run', '--session', id, 'turn four'])).code).toBe(0);
    const resumed = fake.requests.at(-1)!.body;
    expect(stripCache(resumed.system)).toEqual(stripCache(last.system));
    expect(resumed.tools).toEqual(last.tools);
    expect(stripCache(resumed.messages.slice(0, last.messages.length))).toEqual(stripCache(last.messages));
    expect(stripCache(resumed.messages.slice(last.messages.length))).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Recalled.' }] },
      { role: 'user', content: [{ type: 'text', text: 'turn four' }] },
    ]);
  }, 90_000);
});
