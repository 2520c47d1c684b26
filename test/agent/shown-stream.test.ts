import { afterEach, describe, expect, it } from 'vitest';
import { shownStream } from '../../src/agent/shown-stream.js';
import type { ControllerEvent } from '../../src/agent/session-controller.js';
import { addCredentials, clearCredentials, scrubText } from '../../src/security/scrubber.js';

const KEY = 'Qz7w-Unit-Xv93-0c1d2e3f';

afterEach(() => clearCredentials());

async function shown(events: ControllerEvent[]): Promise<ControllerEvent[]> {
  async function* source() {
    yield* events;
  }
  const out: ControllerEvent[] = [];
  for await (const ev of shownStream(source(), (t) => scrubText(t))) out.push(ev);
  return out;
}

describe('the events the front ends show', () => {
  it('text held back comes out before the next event, so a card never jumps ahead of the text before it', async () => {
    addCredentials([KEY]);
    const call = { id: 't1', name: 'grep', args: JSON.stringify({ pattern: KEY }) };
    const out = await shown([
      { type: 'text_delta', text: `Looking for ${KEY.slice(0, 5)}` },
      { type: 'usage', usage: { input: 1, output: 1, cache_read: 0, cache_write: 0 } },
      { type: 'text_delta', text: `${KEY.slice(5)} now` },
      { type: 'tool_call_started', call },
      { type: 'tool_call_finished', call, result: { role: 'tool', tool_call_id: 't1', name: 'grep', content: `a.txt:1:${KEY}` } },
      { type: 'reasoning_delta', text: `thinking about ${KEY.slice(0, 9)}` },
      { type: 'done', stopReason: 'end_turn' },
    ]);
    expect(out.map((e) => e.type)).toEqual(['text_delta', 'usage', 'text_delta', 'tool_call_started', 'tool_call_finished', 'reasoning_delta', 'reasoning_delta', 'done']);
    const text = out.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text);
    expect(text.join('')).toBe('Looking for [REDACTED] now');
    const started = out[3] as Extract<ControllerEvent, { type: 'tool_call_started' }>;
    expect(JSON.parse(started.call.args).pattern).toBe('[REDACTED]');
    expect((out[4] as Extract<ControllerEvent, { type: 'tool_call_finished' }>).result.content).toBe('a.txt:1:[REDACTED]');
    // A stream that ends mid-credential shows what was held, scrubbed (a prefix is not the key).
    expect(
      out
        .filter((e) => e.type === 'reasoning_delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe(`thinking about ${KEY.slice(0, 9)}`);
    expect(JSON.stringify(out)).not.toContain(KEY);
  });

  it('a source that throws mid-answer still shows the text held back, then the error', async () => {
    addCredentials([KEY]);
    async function* failing(): AsyncGenerator<ControllerEvent> {
      yield { type: 'text_delta', text: `the answer so far ${KEY.slice(0, 6)}` };
      throw new Error('disk full');
    }
    const out: ControllerEvent[] = [];
    await expect(
      (async () => {
        for await (const ev of shownStream(failing(), (t) => scrubText(t))) out.push(ev);
      })(),
    ).rejects.toThrow('disk full');
    expect(out.map((e) => (e as { text: string }).text).join('')).toBe(`the answer so far ${KEY.slice(0, 6)}`);
  });

  it("a refusal's explanation is scrubbed like the answer", async () => {
    addCredentials([KEY]);
    const out = await shown([{ type: 'done', stopReason: 'refusal', explanation: `declined: the prompt quoted ${KEY}` }]);
    expect(out).toEqual([{ type: 'done', stopReason: 'refusal', explanation: 'declined: the prompt quoted [REDACTED]' }]);
  });

  it("a hook's changed input is shown scrubbed, the model's original too", async () => {
    addCredentials([KEY]);
    const original = { id: 't2', name: 'bash', args: JSON.stringify({ command: 'ls' }) };
    const call = { id: 't2', name: 'bash', args: JSON.stringify({ command: `curl -H 'x-key: ${KEY}' example.test` }) };
    const [changed] = await shown([{ type: 'tool_call_input_changed', call, original }]);
    expect(changed).toEqual({ type: 'tool_call_input_changed', call: { ...call, args: JSON.stringify({ command: "curl -H 'x-key: [REDACTED]' example.test" }) }, original });
  });
});
