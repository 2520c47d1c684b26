import { readdirSync, readFileSync } from 'node:fs';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, ToolMessage } from '../../src/core/message.js';
import type { ToolDefinition } from '../../src/core/provider.js';
import { ContextMeter, estimateRequest, estimateText, rememberToolDefinitionTokens, TokenEstimator } from '../../src/tokens/token-estimator.js';

const CORPUS = new URL('../fixtures/estimator-corpus/', import.meta.url);
const corpus = readdirSync(CORPUS)
  .sort()
  .map((name) => ({ name, text: readFileSync(new URL(name, CORPUS), 'utf8') }));

/** The reference: o200k, with special-token text counted as plain text (tool output may hold it). */
const realTokens = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
const relativeError = (estimate: number, real: number) => (estimate - real) / real;

/** Deterministic pseudo-random bytes (hashes and base64 blobs in tool output). */
function pseudoRandomBytes(n: number, seed = 42): Buffer {
  const out = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const tools: ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file in the workspace.', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'bash', description: 'Run a shell command.', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
];

function toolTurn(i: number, output: string): [AssistantMessage, ToolMessage] {
  const id = `toolu_${i.toString(36).padStart(8, '0')}`;
  return [
    { role: 'assistant', content: `Reading file ${i}.`, tool_calls: [{ id, name: 'read_file', args: JSON.stringify({ path: `src/file-${i}.ts` }) }] },
    { role: 'tool', tool_call_id: id, name: 'read_file', content: output },
  ];
}

function history(turns: number): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are Keen, a coding agent.' },
    { role: 'user', content: 'Find where the budget is computed.' },
  ];
  for (let i = 0; i < turns; i++) messages.push(...toolTurn(i, corpus[i % corpus.length].text.slice(0, 2_000)));
  return messages;
}

describe('estimateText against the o200k tokenizer', () => {
  it('stays within 10% on each kind of text in the mixed corpus and within 3% on all of it', () => {
    expect(corpus.map((c) => c.name)).toEqual(['json-compact.txt', 'json.txt', 'multilingual.txt', 'prose.md', 'python.txt', 'shell.txt', 'typescript.txt']);
    let estimated = 0;
    let real = 0;
    for (const { name, text } of corpus) {
      const e = estimateText(text);
      const r = realTokens(text);
      expect({ name, error: Math.abs(relativeError(e, r)) <= 0.1 }).toEqual({ name, error: true });
      estimated += e;
      real += r;
    }
    expect(Math.abs(relativeError(estimated, real))).toBeLessThanOrEqual(0.03);
  });

  it('stays within 10% on a single tool-result-sized chunk of each kind', () => {
    for (const { name, text } of corpus.filter((c) => c.text.length >= 8_000)) {
      const chunk = text.slice(1_000, 9_000);
      expect({ name, error: Math.abs(relativeError(estimateText(chunk), realTokens(chunk))) <= 0.1 }).toEqual({ name, error: true });
    }
  });

  it('stays within 10% on hex hashes and 15% on base64 blobs (the hardest case: random letters)', () => {
    const bytes = pseudoRandomBytes(24_000);
    const hex = bytes.toString('hex');
    const b64 = bytes.toString('base64');
    expect(Math.abs(relativeError(estimateText(hex), realTokens(hex)))).toBeLessThanOrEqual(0.1);
    expect(Math.abs(relativeError(estimateText(b64), realTokens(b64)))).toBeLessThanOrEqual(0.15);
  });

  it('counts nothing as nothing and treats special-token text as plain text', () => {
    expect(estimateText('')).toBe(0);
    expect(estimateText('<|endoftext|><|im_start|>')).toBeGreaterThan(0);
  });

  it('adds up: the estimate of a text is close to the sum of its parts', () => {
    const text = corpus.map((c) => c.text).join('\n');
    const parts = text.split('\n').reduce((sum, line) => sum + estimateText(line + '\n'), 0);
    expect(Math.abs(relativeError(parts, estimateText(text)))).toBeLessThan(0.05);
  });
});

describe('TokenEstimator', () => {
  it('counts tool-call arguments, ids and reasoning as part of a message', () => {
    const est = new TokenEstimator();
    const args = JSON.stringify({ path: 'src/tokens/context-budget.ts', offset: 120, limit: 400 });
    const plain: AssistantMessage = { role: 'assistant', content: 'Let me look.' };
    const withCall: AssistantMessage = { ...plain, tool_calls: [{ id: 'toolu_01', name: 'read_file', args }] };
    const withReasoning: AssistantMessage = { ...plain, reasoning: [{ provider: 'anthropic', text: 'The budget lives in context-budget.ts; read it first.', signature: 'c2ln' }] };
    expect(est.message(withCall) - est.message(plain)).toBeGreaterThanOrEqual(realTokens(args));
    expect(est.message(withReasoning) - est.message(plain)).toBeGreaterThanOrEqual(realTokens(withReasoning.reasoning![0].text));
    const opaque: AssistantMessage = { ...plain, reasoning: [{ provider: 'openai-responses', text: '', encrypted_content: 'A'.repeat(5_000) }] };
    expect(est.message(opaque) - est.message(plain)).toBe(1_000);
  });

  it('counts the whole request: messages, tool definitions and framing', () => {
    const messages = history(3);
    const est = new TokenEstimator();
    const content = messages.reduce((sum, m) => sum + realTokens(m.content), 0);
    const request = est.request({ messages, tools });
    expect(request).toBeGreaterThan(content + est.tools(tools));
    expect(request).toBe(estimateRequest({ messages, tools }));
    expect(est.tools([])).toBe(0);
  });

  it('counts old messages once: estimating after one new tool turn only counts the new messages', () => {
    const est = new TokenEstimator();
    const messages = history(200);
    const first = est.request({ messages, tools });
    expect(est.stats.messagesCounted).toBe(messages.length);
    expect(est.stats.toolDefinitionsCounted).toBe(2);

    const [call, result] = toolTurn(200, 'export const answer = 42;\n');
    messages.push(call, result);
    const second = est.request({ messages, tools });
    expect(est.stats.messagesCounted).toBe(messages.length);
    expect(second).toBe(first + est.message(call) + est.message(result));
    expect(est.stats.messagesCounted).toBe(messages.length);

    // A new array of the same tool definitions is not re-counted either.
    est.request({ messages, tools: [...tools] });
    expect(est.stats.toolDefinitionsCounted).toBe(2);
  });

  it('takes the count of a definition counted at build time instead of counting it again (the bundle’s built-in tools)', () => {
    const def = { name: 'lookup', description: 'Look a word up.', input_schema: { type: 'object', properties: { word: { type: 'string' } } } };
    const counted = new TokenEstimator().tools([{ ...def }]);
    rememberToolDefinitionTokens(def, counted);
    const est = new TokenEstimator();
    expect(est.tools([def])).toBe(counted);
    expect(est.stats.toolDefinitionsCounted).toBe(0);
    expect(est.tools([{ ...def }])).toBe(counted);
    expect(est.stats.toolDefinitionsCounted).toBe(1);
  });

  it('counts a message again if it was changed after being counted', () => {
    const est = new TokenEstimator();
    const m: Message = { role: 'user', content: 'short' };
    const before = est.message(m);
    m.content += ' and now a much longer question about the context budget and compaction';
    expect(est.message(m)).toBeGreaterThan(before);
    expect(est.stats.messagesCounted).toBe(2);
  });
});

describe('ContextMeter', () => {
  it('uses the full local estimate until a provider reports usage', () => {
    const meter = new ContextMeter(new TokenEstimator());
    const messages = history(5);
    expect(meter.estimate(messages, tools)).toBe(new TokenEstimator().request({ messages, tools }));
    expect(meter.lastSource).toBe('local');
  });

  it('corrects the estimate with reported usage plus what was appended since, without re-counting the prefix', () => {
    const est = new TokenEstimator();
    const meter = new ContextMeter(est);
    const messages = history(100);
    meter.observe(123_456, messages.length, messages);
    const [call, result] = toolTurn(100, 'total 0\n');
    messages.push(call, result);
    expect(meter.estimate(messages, tools)).toBe(123_456 + est.message(call) + est.message(result));
    expect(meter.lastSource).toBe('reported');
    expect(est.stats.messagesCounted).toBe(2); // only the new ones
  });

  it('pins the report to the messages of the last estimate when observe gets only a count', () => {
    const meter = new ContextMeter(new TokenEstimator());
    const messages = history(4);
    meter.estimate(messages, tools);
    meter.observe(9_000, messages.length);
    messages.push(...toolTurn(4, 'ok'));
    expect(meter.estimate(messages, tools)).toBeGreaterThan(9_000);
    expect(meter.lastSource).toBe('reported');
  });

  it('adopts the first messages of the next estimate when the first report arrives before any estimate', () => {
    const meter = new ContextMeter(new TokenEstimator());
    const messages = history(2);
    meter.observe(5_000, messages.length);
    messages.push(...toolTurn(2, 'ok'));
    meter.estimate(messages, tools);
    expect(meter.lastSource).toBe('reported');
  });

  it('falls back to the local estimate when the reported messages were replaced', () => {
    const est = new TokenEstimator();
    const meter = new ContextMeter(est);
    const messages = history(10);
    meter.observe(50_000, messages.length, messages);
    const replaced = [messages[0], { role: 'user', content: '<compacted_context>summary</compacted_context>' } as Message, ...history(10).slice(2)];
    expect(meter.estimate(replaced, tools)).toBe(est.request({ messages: replaced, tools }));
    expect(meter.lastSource).toBe('local');
    // Fewer messages than the report covered: also local.
    meter.observe(50_000, messages.length, messages);
    expect(meter.estimate(messages.slice(0, 3), tools)).toBe(est.request({ messages: messages.slice(0, 3), tools }));
  });

  it('forgets the report on reset (after a compaction) and ignores empty reports', () => {
    const meter = new ContextMeter(new TokenEstimator());
    const messages = history(3);
    meter.observe(40_000, messages.length, messages);
    meter.reset();
    meter.estimate(messages, tools);
    expect(meter.lastSource).toBe('local');
    meter.observe(0, messages.length, messages); // a usage event with output tokens only
    meter.estimate(messages, tools);
    expect(meter.lastSource).toBe('local');
  });

  it('adds the difference when the tool definitions changed since the report', () => {
    const est = new TokenEstimator();
    const meter = new ContextMeter(est);
    const messages = history(3);
    meter.estimate(messages, tools);
    meter.observe(10_000, messages.length);
    const more = [...tools, { name: 'grep', description: 'Search file contents with a regular expression.', input_schema: { type: 'object' } }];
    expect(meter.estimate(messages, more)).toBe(10_000 + est.tools(more) - est.tools(tools));
  });
});
