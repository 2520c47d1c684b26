/**
 * Transcript format 2 reads files written by the release before it (format 1): the fixture was
 * written by that release's own code (SessionController + SessionStore against the Anthropic
 * fake), before assistant messages had parts.
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../src/core/message.js';
import { systemMessage, userMessage } from '../../src/core/message.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { transcriptPath } from '../../src/transcript/paths.js';
import { buildConversation } from '../../src/transcript/projection.js';
import { loadTranscript } from '../../src/transcript/reader.js';
import { TRANSCRIPT_FORMAT } from '../../src/transcript/records.js';
import { SessionStore } from '../../src/transcript/store.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { stripCache } from '../kit/anthropic-wire-helpers.js';
import { tempHome } from '../kit/temp-dir.js';
import { turn } from '../kit/events.js';

const FIXTURE = join(import.meta.dirname, '../fixtures/transcripts/format-1.jsonl');
const ID = '20261201-093000-fmt001';
const CWD = '/projects/demo';

let home: string;
let fake: ScriptedServer;

beforeEach(async () => {
  home = tempHome();
  fake = await startAnthropicFake();
  const path = transcriptPath(home, CWD, ID);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await copyFile(FIXTURE, path);
});

afterEach(async () => {
  await fake.close();
});

describe('transcript format upgrade', () => {
  it('this release writes format 2', () => {
    expect(TRANSCRIPT_FORMAT).toBe(2);
  });

  it('reads a format-1 transcript with ordered parts: reasoning, text, tool calls', async () => {
    const loaded = await loadTranscript(transcriptPath(home, CWD, ID));
    expect(loaded.problems).toEqual([]);
    const turn = loaded.records.find((r) => r.kind === 'assistant_turn')!;
    const first = (turn.kind === 'assistant_turn' ? turn.messages[0] : undefined) as AssistantMessage;
    expect(first.provider).toBe('anthropic');
    expect(first.parts).toEqual([
      { type: 'reasoning', text: 'I should read the note.', signature: 'sig-A' },
      { type: 'text', text: 'Reading the note.' },
      { type: 'tool_call', id: 'toolu_1', name: 'read_file', args: '{"path":"note.txt"}' },
    ]);
    // The generic fields other code reads are untouched.
    expect(first.content).toBe('Reading the note.');
    expect(first.tool_calls).toEqual([{ id: 'toolu_1', name: 'read_file', args: '{"path":"note.txt"}' }]);
  });

  it('resumes a format-1 session: the request is what that release sent, and new records keep the file readable', async () => {
    const { store, records } = await SessionStore.open(home, CWD, ID, { env: {} });
    const history = buildConversation(records);
    const adapter = await createAnthropicAdapter({ model: 'claude-test', apiKey: 'k', baseURL: fake.url, home, env: {} });
    // The fake, like the API, accepts only signatures it issued: let it issue the fixture's two.
    for (const [thinking, signature] of [
      ['I should read the note.', 'sig-A'],
      ['It says 42.', 'sig-B'],
    ]) {
      fake.enqueue({ steps: [{ thinking, signature }, { text: 'ok' }] });
      const warm = await adapter.open({ model: 'claude-test', messages: [userMessage('warm up')], tools: [], maxOutputTokens: 1000 });
      for await (const _ of warm.streamTurn(new AbortController().signal)) void _;
    }
    fake.requests.length = 0;
    const conversation = await adapter.open({
      model: 'claude-test',
      messages: [systemMessage('You are a test agent.'), ...history, userMessage('Go on')],
      tools: [],
      maxOutputTokens: 1000,
    });
    fake.enqueue({ steps: [{ text: 'Going on.' }] });
    const events = await turn(conversation);
    const end = events.at(-1)!;
    expect(end.type).toBe('turn_end');
    // What the format-1 release rebuilt from these records (its order: reasoning, text, tool calls).
    expect(stripCache(fake.requests[0].body.messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What does note.txt say?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should read the note.', signature: 'sig-A' },
          { type: 'text', text: 'Reading the note.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'note.txt' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '     1\tthe answer is 42' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'It says 42.', signature: 'sig-B' },
          { type: 'text', text: 'The answer is 42.' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hi again.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Go on' }] },
    ]);
    // A format-2 record appended to the old file reads back as written, beside the upgraded ones.
    if (end.type !== 'turn_end') return;
    await store.append({ kind: 'user_message', message: userMessage('Go on') });
    await store.append({ kind: 'assistant_turn', text: 'Going on.', tools: [], usage: { input: 1, output: 1, cache_read: 0, cache_write: 0 }, messages: [end.message] });
    await store.close();
    const again = await loadTranscript(transcriptPath(home, CWD, ID));
    expect(again.problems).toEqual([]);
    expect(buildConversation(again.records).at(-1)).toEqual(end.message);
    expect((await readFile(transcriptPath(home, CWD, ID), 'utf8')).split('\n')[0]).toContain('"format":1');
  });
});
