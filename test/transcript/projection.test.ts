import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { buildConversation, currentModel, replayTranscript, segmentTurn } from '../../src/transcript/projection.js';
import { loadTranscript } from '../../src/transcript/reader.js';
import type { NewRecord, SessionRecord } from '../../src/transcript/records.js';
import { SessionStore } from '../../src/transcript/store.js';
import { CWD, USAGE, compaction, createStore, turn, user } from './helpers.js';
import { tempHome } from '../kit/temp-dir.js';

/** Records with seq/ts filled in, as a loaded transcript would hold them. */
function records(...list: NewRecord[]): SessionRecord[] {
  const started: NewRecord = { kind: 'session_started', format: 1, session_id: 's', cwd: '/p', provider: 'anthropic', model: 'm1', keen_version: '0.1.0' };
  return [started, ...list].map((r, i) => ({ seq: i + 1, ts: '2025-01-01T00:00:00.000Z', ...r }) as SessionRecord);
}

const toolLoop: Message[] = [
  { role: 'assistant', content: 'Let me look.', tool_calls: [{ id: 'c1', name: 'read_file', args: '{"path":"a.ts"}' }] },
  { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'export const a = 1;' },
  { role: 'assistant', content: 'a is 1.' },
];

describe('buildConversation', () => {
  it('a rewind to before a compacted message goes back to the history as it was then', () => {
    // seq 2 q1, 3 a1, 4 q2, 5 a2, 6 compaction, 7 q3, 8 a3, 9 rewind to before q2.
    const list = records(user('q1'), turn('a1'), user('q2'), turn('a2'), compaction('manual', 'Summary'), user('q3'), turn('a3'), {
      kind: 'undo',
      turn_seqs: [],
      files: [],
      conversation_to_seq: 4,
    });
    expect(buildConversation(list)).toEqual([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
    ]);
    // And a message sent after the rewind follows that history.
    const after = [...list, { ...(user('q4') as SessionRecord), seq: 10, ts: list[0].ts } as SessionRecord];
    expect(buildConversation(after).map((m) => m.content)).toEqual(['q1', 'a1', 'q4']);
  });

  it('appends user messages and the messages of each assistant turn, in order', () => {
    const history = buildConversation(records(user('what is a?'), turn('Let me look.\na is 1.', toolLoop), user('thanks')));
    expect(history).toEqual([{ role: 'user', content: 'what is a?' }, ...toolLoop, { role: 'user', content: 'thanks' }]);
  });

  it('replaces everything before a compaction with its messages', () => {
    const history = buildConversation(records(user('old question'), turn('old answer'), compaction('manual', 'Summary of the old talk'), user('new question'), turn('new answer')));
    expect(history).toEqual([
      { role: 'user', content: 'Summary of the old talk' },
      { role: 'user', content: 'new question' },
      { role: 'assistant', content: 'new answer' },
    ]);
  });

  it('starts from the last of several compactions; a checkpoint never survives its compaction', () => {
    const history = buildConversation(
      records(
        user('q1'),
        turn('a1'),
        turn('cp1', undefined, true),
        compaction('auto', 'summary one'),
        user('q2'),
        turn('a2'),
        compaction('manual', 'summary two'),
        turn('cp3', [{ role: 'assistant', content: 'cp3 partial' }], true),
        compaction('auto', 'summary three'),
        turn('a3 after auto compaction'),
      ),
    );
    expect(history).toEqual([
      { role: 'user', content: 'summary three' },
      { role: 'assistant', content: 'a3 after auto compaction' },
    ]);
  });

  it('returns a copy: changing the history never changes the records', () => {
    const input = records(user('q'), turn('t', toolLoop), compaction('auto', 's'), turn('after', toolLoop));
    const before = structuredClone(input);
    const history = buildConversation(input);
    for (const m of history) {
      m.content = 'changed';
      if (m.role === 'assistant' && m.tool_calls) m.tool_calls[0].args = 'changed';
    }
    expect(input).toEqual(before);
  });

  it('resumes the compacted history from a transcript written by the store', async () => {
    const home = tempHome();
    const store = await createStore(home);
    await store.append(user('first prompt'));
    await store.append(turn('first answer'));
    await store.append(user('second prompt'));
    await store.appendBatch([turn('partial before compaction', undefined, true), compaction('auto', 'the summary')]);
    await store.append(turn('finished after compaction'));
    await store.close();

    const { store: reopened, records: loaded } = await SessionStore.open(home, CWD, store.id);
    await reopened.close();
    expect(buildConversation(loaded)).toEqual([
      { role: 'user', content: 'the summary' },
      { role: 'assistant', content: 'finished after compaction' },
    ]);
    // The pre-compaction records stay on disk for audit and replay.
    expect(replayTranscript((await loadTranscript(store.path)).records).map((i) => i.type)).toEqual(['user', 'assistant', 'user', 'assistant', 'compaction', 'assistant']);
  });
});

describe('replayTranscript', () => {
  it('shows prompts, assistant text with tool cards at their offsets, compaction markers and model switches', () => {
    const text = 'Let me look.a is 1.';
    const items = replayTranscript(
      records(
        user('what is a?'),
        {
          kind: 'assistant_turn',
          text,
          tools: [{ id: 'c1', name: 'read_file', summary: 'read a.ts', is_error: false, offset: 12 }],
          usage: USAGE,
          messages: toolLoop,
        },
        turn('checkpoint text', undefined, true),
        compaction('auto', 'hidden summary'),
        compaction('manual', 'visible summary'),
        { kind: 'model_changed', provider: 'openai', model: 'gpt-x' },
      ),
    );
    expect(items).toEqual([
      { type: 'user', seq: 2, text: 'what is a?' },
      {
        type: 'assistant',
        seq: 3,
        text,
        usage: USAGE,
        checkpoint: false,
        segments: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool', tool: { id: 'c1', name: 'read_file', summary: 'read a.ts', is_error: false, offset: 12 } },
          { type: 'text', text: 'a is 1.' },
        ],
      },
      { type: 'assistant', seq: 4, text: 'checkpoint text', usage: USAGE, checkpoint: true, segments: [{ type: 'text', text: 'checkpoint text' }] },
      { type: 'compaction', seq: 5, mode: 'auto', status: '' },
      { type: 'compaction', seq: 6, mode: 'manual', status: 'Context compacted.' },
      { type: 'model_changed', seq: 7, provider: 'openai', model: 'gpt-x' },
    ]);
  });

  it('orders tool cards by offset, clamps offsets past the text, keeps calls at the same offset in order', () => {
    const card = (id: string, offset: number) => ({ id, name: 'bash', summary: id, is_error: id === 'c', offset });
    const segments = segmentTurn('abcdef', [card('b', 3), card('a', 0), card('c', 3), card('d', 99)]);
    expect(segments.map((s) => (s.type === 'text' ? s.text : `[${s.tool.id}]`))).toEqual(['[a]', 'abc', '[b]', '[c]', 'def', '[d]']);
  });

  it('reports the model in effect at the end', () => {
    expect(currentModel(records(user('q')))).toEqual({ provider: 'anthropic', model: 'm1' });
    expect(currentModel(records(user('q'), { kind: 'model_changed', provider: 'openai', model: 'gpt-x' }))).toEqual({
      provider: 'openai',
      model: 'gpt-x',
    });
    expect(currentModel([])).toBeUndefined();
  });
});
