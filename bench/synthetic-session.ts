/**
 * Synthetic transcripts for the benches: records shaped like a real session's (prompts, tool
 * turns with their messages, automatic compactions stamped with the model), written straight to
 * the file (the store would fsync each of 100,000 records).
 */
import { closeSync, fsyncSync, openSync, statSync, writeSync } from 'node:fs';
import type { Message } from '../src/core/message.js';
import type { NewRecord, SessionRecord } from '../src/transcript/records.js';

const WORDS =
  'the of and to in is that for it as with was on be by at this from or an are which but not have had has one all were when we there can more if will would about so out up into than them some could time these two may first then do any like my now over such our man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(
    ' ',
  );

let rng = 42;
function rand(n: number): number {
  rng = (rng * 1_103_515_245 + 12_345) % 2 ** 31;
  return rng % n;
}

function words(count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(WORDS[rand(WORDS.length)]);
  return out.join(' ');
}

const usage = { input: 1200, output: 300, cache_read: 40_000, cache_write: 500 };

function assistantTurn(i: number): NewRecord {
  const callId = `call_${i}`;
  const messages: Message[] = [
    { role: 'assistant', content: words(20), tool_calls: [{ id: callId, name: 'read_file', args: JSON.stringify({ path: `src/module-${i % 500}.ts` }) }] },
    { role: 'tool', tool_call_id: callId, name: 'read_file', content: words(45) },
    { role: 'assistant', content: words(25) },
  ];
  const text = `${messages[0].content}\n${messages[2].content}`;
  return {
    kind: 'assistant_turn',
    text,
    tools: [{ id: callId, name: 'read_file', summary: `read src/module-${i % 500}.ts`, is_error: false, offset: 10 }],
    usage,
    messages,
  };
}

export function userRecord(i: number): NewRecord {
  return { kind: 'user_message', message: { role: 'user', content: `request ${i}: ${words(25)}` } };
}

export function compactionBatch(i: number): NewRecord[] {
  return [
    { ...(assistantTurn(i) as Extract<NewRecord, { kind: 'assistant_turn' }>), checkpoint: true },
    // Stamped with the model in effect, as the store writes it (what lets an open start here).
    { kind: 'compaction_applied', mode: 'auto', status: '', messages: [{ role: 'user', content: `summary ${i}: ${words(600)}` }], provider: 'anthropic', model: 'bench-model' },
  ];
}

/** Append records 2..count straight to the file (the store would fsync 100k times). */
export function writeSynthetic(path: string, count: number, compactAt = new Set([Math.floor(count / 4), Math.floor(count / 2), Math.floor((count * 3) / 4)])): number {
  const fd = openSync(path, 'a');
  const ts = new Date().toISOString();
  let seq = 2;
  let pending: string[] = [];
  const flush = () => {
    writeSync(fd, pending.join(''));
    pending = [];
  };
  const put = (records: NewRecord[]) => {
    const first = seq;
    for (const { kind, ...payload } of records) {
      const batch = records.length > 1 ? { batch: { first_seq: first, count: records.length } } : {};
      const line = { seq, kind, ts, ...batch, ...payload } as SessionRecord;
      pending.push(`${JSON.stringify(line)}\n`);
      seq++;
    }
    if (pending.length >= 2000) flush();
  };
  while (seq <= count) {
    if (compactAt.has(seq) && seq + 1 <= count) put(compactionBatch(seq));
    else if (seq % 10 === 2) put([userRecord(seq)]);
    else put([assistantTurn(seq)]);
  }
  flush();
  fsyncSync(fd);
  closeSync(fd);
  return statSync(path).size;
}

/** Every n-th seq below `count` (where a synthetic transcript compacts). */
export function everyN(count: number, n: number): Set<number> {
  const out = new Set<number>();
  for (let at = n; at < count - 2; at += n) out.add(at);
  return out;
}
