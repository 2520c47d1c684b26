/**
 * Opening a session to continue it reads from the last compaction's batch on
 * (src/transcript/tail-reader.ts). The proof is a comparison with the full load on generated
 * transcripts — written by the real store, with compactions (manual and batched), prunes, undos,
 * model switches and tool loops — clean and damaged: the history, the model, the last seq and the
 * repair offsets must be the same, and every problem the fast path reports must be one the full
 * load reports too.
 */
import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { buildConversation, currentModel } from '../../src/transcript/projection.js';
import { loadTranscript } from '../../src/transcript/reader.js';
import type { NewRecord } from '../../src/transcript/records.js';
import { SessionStore } from '../../src/transcript/store.js';
import { loadTranscriptTail } from '../../src/transcript/tail-reader.js';
import { CWD, USAGE, createStore, turn, user } from './helpers.js';
import { tempHome } from '../kit/temp-dir.js';

function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

function toolTurn(i: number): NewRecord {
  const id = `call_${i}`;
  const messages: Message[] = [
    { role: 'assistant', content: `looking ${i}`, tool_calls: [{ id, name: 'read_file', args: JSON.stringify({ path: `f${i}.ts` }) }] },
    { role: 'tool', tool_call_id: id, name: 'read_file', content: `content of f${i}.ts `.repeat(1 + (i % 5)) },
    { role: 'assistant', content: `answer ${i}` },
  ];
  return { kind: 'assistant_turn', text: `looking ${i}answer ${i}`, tools: [], usage: USAGE, messages };
}

/** Write a random session through the real store; returns its transcript path. */
async function generate(seed: number, steps: number): Promise<string> {
  const r = rng(seed);
  const h = tempHome();
  const store = await createStore(h, { fsync: false });
  const written: import('../../src/transcript/records.js').SessionRecord[] = [];
  const put = async (rec: NewRecord) => written.push(await store.append(rec));
  for (let i = 0; i < steps; i++) {
    const pick = r(20);
    if (pick < 6) await put(user(`question ${i}`));
    else if (pick < 12) await put(toolTurn(i));
    else if (pick < 14) {
      const summary = { role: 'user' as const, content: `<compacted_context>summary ${i}</compacted_context>`, summary_level: 1 as const };
      if (r(2) === 0) await put({ kind: 'compaction_applied', mode: 'manual', status: 'Context compacted.', messages: [summary, { role: 'assistant', content: `tail ${i}` }] });
      else
        written.push(
          ...(await store.appendBatch([
            { ...(toolTurn(i) as Extract<NewRecord, { kind: 'assistant_turn' }>), checkpoint: true },
            { kind: 'compaction_applied', mode: 'auto', status: '', messages: [summary] },
          ])),
        );
    } else if (pick < 16) {
      // Prune a real tool output of the history as it stands.
      const history = buildConversation(written);
      const tools = history.flatMap((m, index) => (m.role === 'tool' ? [{ index, id: m.tool_call_id }] : []));
      if (tools.length === 0) continue;
      const t = tools[r(tools.length)];
      const prune: NewRecord = { kind: 'prune_applied', pruned: [{ index: t.index, tool_call_id: t.id, artifact: i, content: `[artifact#${i}] output removed` }] };
      written.push(...(await store.appendBatch([{ ...(toolTurn(i) as Extract<NewRecord, { kind: 'assistant_turn' }>), checkpoint: true }, prune])));
    } else if (pick < 18) {
      const users = written.filter((w) => w.kind === 'user_message');
      if (users.length === 0) continue;
      await put({ kind: 'undo', turn_seqs: [], files: [], conversation_to_seq: users[users.length - 1 - r(Math.min(3, users.length))].seq });
    } else if (pick < 19) {
      await put({ kind: 'model_changed', provider: r(2) ? 'openai' : 'anthropic', model: `model-${i}` });
    } else {
      await put(user(`late question ${i}`));
    }
  }
  await store.close();
  return store.path;
}

/**
 * The fast path agrees with the full load on everything continuing needs. One exception, by
 * design: a damaged `model_changed` line before the last compaction is not read, and the model
 * is the one stamped on that compaction — the model the undamaged file names (`cleanModel`).
 */
async function expectSame(path: string, cleanModel?: { provider: string; model: string }): Promise<{ partial: boolean; model?: { provider: string; model: string } }> {
  const full = await loadTranscript(path);
  const tail = await loadTranscriptTail(path);
  expect(buildConversation(tail.records)).toEqual(buildConversation(full.records));
  const unread = full.problems.filter((p) => !tail.problems.some((q) => q.offset === p.offset));
  expect(tail.model).toEqual(unread.length > 0 && cleanModel ? cleanModel : currentModel(full.records));
  expect(tail.records.at(-1)?.seq).toBe(full.records.at(-1)?.seq);
  expect(tail.records).toEqual(full.records.slice(full.records.length - tail.records.length));
  expect({ size: tail.size, tailStart: tail.tailStart, missingNewline: tail.missingNewline }).toEqual({
    size: full.size,
    tailStart: full.tailStart,
    missingNewline: full.missingNewline,
  });
  for (const p of tail.problems) expect(full.problems).toContainEqual(p);
  if (!tail.partial) expect(tail.problems).toEqual(full.problems);
  // What the fast path did not read lies before its first record.
  const firstOffset = tail.partial ? Buffer.byteLength(readFileSync(path, 'utf8').split(`{"seq":${tail.records[0].seq},`)[0]) : 0;
  for (const p of unread) expect(p.offset).toBeLessThan(firstOffset);
  return { partial: tail.partial, model: tail.model };
}

/** Lines of the file, and a rewrite of line `i` (0-based). */
function editLine(path: string, pick: (lines: string[]) => number, edit: (line: string) => string): void {
  const lines = readFileSync(path, 'utf8').split('\n');
  const i = pick(lines);
  lines[i] = edit(lines[i]);
  writeFileSync(path, lines.join('\n'));
}

describe('fast open: from the last compaction on', () => {
  it('gives the history, model and seqs of a full load on 40 generated transcripts, clean and damaged', async () => {
    let partial = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const path = await generate(seed, 20 + (seed % 40));
      const r = rng(seed * 7919);
      const clean = await expectSame(path);
      if (clean.partial) partial++;
      const variants: ((p: string) => void)[] = [
        (p) => appendFileSync(p, '{"seq":99999,"kind":"user_mes'), // torn tail
        (p) => appendFileSync(p, '{"seq":99999,"kind":"compaction_applied","ts":"x","mode":"auto","status":"","messa'), // a torn compaction
        (p) =>
          editLine(
            p,
            (l) => 1 + r(l.length - 2),
            (line) => line.slice(0, Math.max(1, line.length >> 1)),
          ), // a garbled line anywhere
        (p) =>
          editLine(
            p,
            (l) => 1 + r(l.length - 2),
            (line) => line.replace(/^\{"seq":(\d+)/, (_m, s) => `{"seq":${Number(s) * 10 + 7}`),
          ), // a raised seq anywhere
        (p) =>
          editLine(
            p,
            (l) => l.length - 2,
            (line) => line.replace(/^\{"seq":(\d+)/, (_m, s) => `{"seq":${Number(s) - 1}`),
          ), // a repeated last seq
      ];
      for (const damage of variants) {
        const copy = `${path}.v`;
        copyFileSync(path, copy);
        damage(copy);
        try {
          await expectSame(copy, clean.model);
        } catch (err) {
          throw new Error(`seed ${seed}, damage ${variants.indexOf(damage)}: ${(err as Error).message}`);
        }
      }
    }
    // The generator compacts often enough that most transcripts take the fast path.
    expect(partial).toBeGreaterThan(20);
  });

  it('SessionStore.open with read: tail starts at the compaction, continues the seqs and reads the rest on demand', async () => {
    const h = tempHome();
    const store = await createStore(h, { fsync: false });
    await store.append(user('first'));
    await store.append({ kind: 'model_changed', provider: 'openai', model: 'gpt-test' });
    await store.append(toolTurn(1));
    const [, applied] = await store.appendBatch([
      { ...(toolTurn(2) as Extract<NewRecord, { kind: 'assistant_turn' }>), checkpoint: true },
      { kind: 'compaction_applied', mode: 'auto', status: '', messages: [{ role: 'user', content: 'summary' }] },
    ]);
    // The store stamps the model in effect on the compaction: the open needs nothing before it.
    expect(applied).toMatchObject({ kind: 'compaction_applied', provider: 'openai', model: 'gpt-test' });
    await store.append(user('after'));
    await store.close();

    const opened = await SessionStore.open(h, CWD, store.id, { read: 'tail', fsync: false });
    expect(opened.partial).toBe(true);
    expect(opened.records.map((r) => r.seq)).toEqual([5, 6, 7]);
    expect(opened.model).toEqual({ provider: 'openai', model: 'gpt-test' });
    expect(buildConversation(opened.records)).toEqual([
      { role: 'user', content: 'summary' },
      { role: 'user', content: 'after' },
    ]);
    expect((await opened.store.append(user('next'))).seq).toBe(8);
    const whole = await opened.transcript();
    expect(whole.records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await opened.store.close();
  });

  it('a torn tail is moved aside on a fast open, with the line number a full load gives', async () => {
    const h = tempHome();
    const store = await createStore(h, { fsync: false });
    await store.append(user('first'));
    await store.append({ kind: 'compaction_applied', mode: 'manual', status: 'Context compacted.', messages: [{ role: 'user', content: 'summary' }] });
    await store.append(user('after'));
    await store.close();
    appendFileSync(store.path, '{"seq":5,"kind":"user_mess');
    const full = await loadTranscript(store.path);
    const opened = await SessionStore.open(h, CWD, store.id, { read: 'tail', fsync: false });
    expect(opened.partial).toBe(true);
    expect(opened.warning).toContain('skipped damaged line 5 (torn line (crash mid-write))');
    expect(opened.warning?.startsWith(full.warning!)).toBe(true);
    expect(readFileSync(`${store.path}.corrupt`, 'utf8')).toBe('{"seq":5,"kind":"user_mess\n');
    expect((await opened.store.append(user('next'))).seq).toBe(5);
    await opened.store.close();
  });

  it('a compaction written before the store stamped the model, with no model_changed after it, is read in full', async () => {
    const h = tempHome();
    const store = await createStore(h, { fsync: false });
    await store.append({ kind: 'model_changed', provider: 'openai', model: 'gpt-old' });
    await store.close();
    appendFileSync(
      store.path,
      `${JSON.stringify({ seq: 3, kind: 'compaction_applied', ts: new Date().toISOString(), mode: 'manual', status: 'Context compacted.', messages: [{ role: 'user', content: 's' }] })}\n`,
    );
    const tail = await loadTranscriptTail(store.path);
    expect(tail.partial).toBe(false);
    expect(tail.model).toEqual({ provider: 'openai', model: 'gpt-old' });
  });

  it('a rewind to a message before the last compaction is read in full, with the history as it was then', async () => {
    const h = tempHome();
    const store = await createStore(h, { fsync: false });
    await store.append(user('q1'));
    await store.append(turn('a1'));
    const q2 = await store.append(user('q2'));
    await store.append(turn('a2'));
    await store.append({ kind: 'compaction_applied', mode: 'manual', status: 'Context compacted.', messages: [{ role: 'user', content: 'Summary' }] });
    await store.append(user('q3'));
    await store.append({ kind: 'undo', turn_seqs: [], files: [], conversation_to_seq: q2.seq });
    await store.close();
    const tail = await loadTranscriptTail(store.path);
    expect(tail.partial).toBe(false);
    expect(buildConversation(tail.records).map((m) => m.content)).toEqual(['q1', 'a1']);
    await expectSame(store.path);
  });

  it('a format-1 transcript continued by this release reads its old records upgraded, as a full load does', async () => {
    const h = tempHome();
    const store = await createStore(h, { fsync: false });
    await store.close();
    // Rewrite session_started as format 1, then old-shape assistant messages (no parts) after a compaction.
    editLine(
      store.path,
      () => 0,
      (line) => line.replace('"format":2', '"format":1'),
    );
    const opened = await SessionStore.open(h, CWD, store.id, { fsync: false });
    await opened.store.append({ kind: 'compaction_applied', mode: 'manual', status: 'Context compacted.', messages: [{ role: 'user', content: 's' }] });
    await opened.store.append({
      kind: 'assistant_turn',
      text: 'hi',
      tools: [],
      usage: USAGE,
      messages: [{ role: 'assistant', content: 'hi', reasoning: [{ provider: 'anthropic', text: 'hm', signature: 'sig' }] } as Message],
    });
    await opened.store.close();
    const tail = await loadTranscriptTail(store.path);
    expect(tail.partial).toBe(true);
    const history = buildConversation(tail.records);
    expect(history).toEqual(buildConversation((await loadTranscript(store.path)).records));
    expect(history[1]).toHaveProperty('parts');
  });
});
