/**
 * The one conversation: history, fork, replacement and pending-state rules, and the never-throw
 * rule of streamTurn, over a wire whose encoder records exactly what it was fed.
 */
import { describe, expect, it } from 'vitest';
import { Conversation, type NativeEncoder, type WireTranslation } from '../../src/core/conversation.js';
import { llmError } from '../../src/core/errors.js';
import { assistantMessage, systemMessage, userMessage, type Message } from '../../src/core/message.js';
import type { TurnDelta, WireTurn } from '../../src/core/conversation.js';
import { turn } from '../kit/events.js';

/** Native history = one line per message; `anchor` marks where the cache prefix ends. */
class LineEncoder implements NativeEncoder<string[]> {
  constructor(private readonly lines: string[] = []) {}
  push(m: Message): void {
    this.lines.push(`${m.role}:${m.role === 'tool' ? m.tool_call_id : m.content}`);
  }
  anchor(): void {
    this.lines.push('|');
  }
  clone(): LineEncoder {
    return new LineEncoder([...this.lines]);
  }
  view(): string[] {
    return this.lines;
  }
}

const reply = assistantMessage(
  [
    { type: 'text', text: 'ok' },
    { type: 'tool_call', id: 'c1', name: 'read_file', args: '{}' },
  ],
  'test',
);

function wire(
  over: Partial<WireTranslation<string[]>> = {},
  events: () => AsyncGenerator<TurnDelta, WireTurn | undefined> = async function* () {
    yield { type: 'text_delta', text: 'ok' };
    return { message: reply, stopReason: 'tool_use' };
  },
): WireTranslation<string[]> & { sent: string[][] } {
  const sent: string[][] = [];
  return {
    sent,
    encoder: () => new LineEncoder(),
    service: 'the test service',
    replaceSystem: 'replace',
    classify: (err) => llmError('other', `classified: ${(err as Error).message}`),
    async *send(native) {
      sent.push([...native]);
      return yield* events();
    },
    ...over,
  };
}

describe('Conversation', () => {
  it('encodes the opening messages once, sends them, and appends the reply to both histories', async () => {
    const w = wire();
    const c = Conversation.open(w, [systemMessage('S'), userMessage('go')]);
    const events = await turn(c);
    expect(events.at(-1)).toMatchObject({ type: 'turn_end', stopReason: 'tool_use' });
    expect(w.sent).toEqual([['system:S', 'user:go', '|']]);
    expect(c.messages.at(-1)).toBe(reply);
    expect(c.native()).toEqual(['system:S', 'user:go', '|', 'assistant:ok']);
  });

  it('a fork is independent, and appendUserText keeps the cache anchor where it was', async () => {
    const c = Conversation.open(wire(), [userMessage('go')]);
    await turn(c);
    c.appendToolResults([{ role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'x' }]);
    const child = c.fork() as Conversation<string[]>;
    child.appendUserText('summarise');
    expect(child.native()).toEqual(['user:go', '|', 'assistant:ok', 'tool:c1', '|', 'user:summarise']);
    expect(c.native()).toEqual(['user:go', '|', 'assistant:ok', 'tool:c1', '|']);
    expect(c.messages).toHaveLength(3);
  });

  it('pending state: unanswered tool calls, only for wires that pair them', async () => {
    const paired = Conversation.open(wire({ pairsToolCalls: true }), [userMessage('go')]);
    await turn(paired);
    expect(paired.hasPendingState()).toBe(true);
    paired.appendToolResults([{ role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'x' }]);
    expect(paired.hasPendingState()).toBe(false);
    const plain = Conversation.open(wire(), [userMessage('go')]);
    await turn(plain);
    expect(plain.hasPendingState()).toBe(false);
  });

  it('replaceHistory keeps the system messages for `keep` wires and takes the replacement whole for `replace`', () => {
    const replacement = [systemMessage('NEW'), userMessage('summary')];
    const keep = Conversation.open(wire({ replaceSystem: 'keep' }), [systemMessage('OLD'), userMessage('go')]);
    keep.replaceHistory(replacement);
    expect(keep.native()).toEqual(['system:OLD', 'user:summary', '|']);
    const replace = Conversation.open(wire(), [systemMessage('OLD'), userMessage('go')]);
    replace.replaceHistory(replacement);
    expect(replace.native()).toEqual(['system:NEW', 'user:summary', '|']);
  });

  it('never throws: a wire failure is classified, a stream without turn_end is a network error, history unchanged', async () => {
    const failing = Conversation.open(
      // biome-ignore lint/correctness/useYield: a stream that fails before its first event
      wire({}, async function* () {
        throw new Error('boom');
      }),
      [userMessage('go')],
    );
    expect(await turn(failing)).toEqual([{ type: 'error', error: { kind: 'other', message: 'classified: boom' } }]);
    const cut = Conversation.open(
      wire({}, async function* () {
        yield { type: 'text_delta', text: 'half' };
        return undefined;
      }),
      [userMessage('go')],
    );
    const events = await turn(cut);
    expect(events.at(-1)).toEqual({ type: 'error', error: { kind: 'network', message: 'The connection to the test service closed before the reply finished.' } });
    expect(cut.messages).toHaveLength(1);
  });

  it('ends a finished reply the same way for every wire: usage, then turn_end with the explanation', async () => {
    const declined = assistantMessage([{ type: 'text', text: 'I cannot help with that.' }], 'test');
    const usage = { input: 3, output: 2, cache_read: 0, cache_write: 0 };
    const c = Conversation.open(
      wire({}, async function* () {
        yield { type: 'text_delta', text: 'I cannot help with that.' };
        return { message: declined, stopReason: 'refusal', usage, explanation: 'policy category cyber' };
      }),
      [userMessage('go')],
    );
    expect(await turn(c)).toEqual([
      { type: 'text_delta', text: 'I cannot help with that.' },
      { type: 'usage', usage },
      { type: 'turn_end', message: declined, stopReason: 'refusal', explanation: 'policy category cyber' },
    ]);
    expect(c.messages.at(-1)).toBe(declined);
  });

  it('a signal fired mid-turn ends with cancelled and appends nothing', async () => {
    const abort = new AbortController();
    const c = Conversation.open(
      wire({}, async function* () {
        yield { type: 'text_delta', text: 'ok' };
        abort.abort();
        return { message: reply, stopReason: 'end_turn' };
      }),
      [userMessage('go')],
    );
    const events = await turn(c, abort.signal);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind: 'cancelled' } });
    expect(c.messages).toHaveLength(1);
  });
});
