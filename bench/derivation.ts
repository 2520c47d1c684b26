/**
 * Cost of deriving the native request from the lossless history, per provider, on a history of
 * about 1 M tokens: the one-off derivation when a session is opened or resumed, then the cost per
 * new message (append one tool result and build the next request body, cache markers included),
 * and a fork (the nested compaction request). Encoders are incremental, so the per-message cost
 * must not grow with the history: it has to stay well under 1 ms. No network, no SDK calls.
 */
import { Conversation, type NativeEncoder, type WireTranslation } from '../src/core/conversation.js';
import { assistantMessage, type Message } from '../src/core/message.js';
import { AnthropicEncoder, buildRequestBody } from '../src/providers/anthropic-wire.js';
import { ConverseEncoder, converseInput } from '../src/providers/bedrock-wire.js';
import { GenkitEncoder } from '../src/providers/genkit-messages.js';
import { ChatEncoder } from '../src/providers/openai-chat-messages.js';
import { ResponsesEncoder } from '../src/providers/openai-responses-items.js';
import { median } from './common.js';

const TARGET_TOKENS = 1_000_000;
const SAMPLES = 200;

function history(): { messages: Message[]; chars: number } {
  const messages: Message[] = [
    { role: 'system', content: 'You are a bench agent. '.repeat(200) },
    { role: 'user', content: 'Read every file.' },
  ];
  let chars = 0;
  for (let t = 0; chars / 4 < TARGET_TOKENS; t++) {
    const output = `line ${t}: ${'const value = compute(input, options); // '.repeat(40)}\n`.repeat(2);
    const assistant = assistantMessage(
      [
        {
          type: 'reasoning',
          text: `Turn ${t}: the next file.`,
          signature: `sig-${t}`.padEnd(200, 'x'),
          encrypted_content: `enc-${t}`.padEnd(400, 'y'),
          meta: { id: `rs_${t}`, summary: [{ type: 'summary_text', text: `Turn ${t}` }] },
        },
        { type: 'tool_call', id: `call_${t}`, name: 'read_file', args: JSON.stringify({ path: `src/file-${t}.ts` }), meta: { id: `fc_${t}`, ref: null } },
        { type: 'text', text: `Reading file ${t}.` },
      ],
      'bench',
    );
    messages.push(assistant, { role: 'tool', tool_call_id: `call_${t}`, name: 'read_file', content: output });
    chars += output.length + 700;
  }
  return { messages, chars };
}

interface Case {
  name: string;
  encoder: () => NativeEncoder<unknown>;
  /** The request body the wire sends for the native history (the per-request work). */
  body: (native: any) => unknown;
}

const CASES: Case[] = [
  { name: 'anthropic', encoder: () => new AnthropicEncoder([]), body: (n) => buildRequestBody(n, { model: 'm', maxOutputTokens: 8000 }) },
  { name: 'openai', encoder: () => new ChatEncoder(), body: (n) => ({ model: 'm', messages: n, stream: true }) },
  { name: 'openai-responses', encoder: () => new ResponsesEncoder('bench', false), body: (n) => ({ model: 'm', input: n.input, instructions: n.instructions }) },
  { name: 'codex', encoder: () => new ResponsesEncoder('bench', true), body: (n) => ({ model: 'm', input: n.input, instructions: n.instructions }) },
  {
    name: 'bedrock',
    encoder: () => new ConverseEncoder('anthropic.claude-sonnet-4-5-20250929-v1:0'),
    body: (n) => converseInput({ modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0', history: n, tools: [], maxTokens: 8000 }),
  },
  { name: 'genkit', encoder: () => new GenkitEncoder(), body: (n) => n.map((m: any) => ({ ...m, content: [...m.content] })) },
];

const { messages, chars } = history();
console.log(`history: ${messages.length} messages, ~${Math.round(chars / 4 / 1000)}k tokens; ${SAMPLES} new messages per provider`);
for (const c of CASES) {
  const wire: WireTranslation<unknown> = {
    service: c.name,
    encoder: c.encoder,
    replaceSystem: 'replace',
    classify: () => ({ kind: 'other', message: 'unused' }),
    // biome-ignore lint/correctness/useYield: encoding is measured; nothing is sent
    send: async function* () {
      return undefined;
    },
  };
  let t0 = performance.now();
  const conversation = Conversation.open(wire, messages);
  c.body(conversation.native());
  const openMs = performance.now() - t0;
  const perMessage: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    t0 = performance.now();
    conversation.appendToolResults([{ role: 'tool', tool_call_id: `extra_${i}`, name: 'read_file', content: `more output ${i}` }]);
    c.body(conversation.native());
    perMessage.push(performance.now() - t0);
  }
  const forks: number[] = [];
  for (let i = 0; i < 20; i++) {
    t0 = performance.now();
    const child = conversation.fork();
    child.appendUserText('Summarise.');
    c.body((child as Conversation<unknown>).native());
    forks.push(performance.now() - t0);
  }
  console.log(
    `${c.name.padEnd(17)} open/resume ${openMs.toFixed(1).padStart(6)} ms   per new message median ${median(perMessage).toFixed(3)} ms   fork + request median ${median(forks).toFixed(3)} ms`,
  );
}
