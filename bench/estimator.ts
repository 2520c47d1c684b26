/**
 * Token estimator: accuracy against o200k on the mixed corpus, the per-iteration estimate on a
 * ~1 M-token history after one new tool result (target < 5 ms), and a cold full estimate.
 *
 *   npx tsx bench/estimator.ts
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Message } from '../src/core/message.js';
import type { ToolDefinition } from '../src/core/provider.js';
import { ContextMeter, estimateText, TokenEstimator } from '../src/tokens/token-estimator.js';
import { median } from './common.js';

const importStart = performance.now();
const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
const tokenizerImportMs = performance.now() - importStart;
const realTokens = (text: string) => countTokens(text, { disallowedSpecial: new Set() });

const ms = (x: number) => `${x.toFixed(3)} ms`;
const pct = (e: number, r: number) => `${(((e - r) / r) * 100).toFixed(1).padStart(5)}%`;

const corpusDir = new URL('../test/fixtures/estimator-corpus/', import.meta.url);
const corpus = readdirSync(corpusDir)
  .sort()
  .map((name) => ({ name, text: readFileSync(new URL(name, corpusDir), 'utf8') }));

// ---- accuracy -------------------------------------------------------------------------------
console.log('accuracy vs o200k (gpt-tokenizer), test/fixtures/estimator-corpus:');
let allEst = 0;
let allReal = 0;
for (const { name, text } of corpus) {
  const e = estimateText(text);
  const r = realTokens(text);
  allEst += e;
  allReal += r;
  console.log(`  ${name.padEnd(18)} real ${String(r).padStart(6)}  estimate ${String(e).padStart(6)}  ${pct(e, r)}`);
}
console.log(`  ${'all'.padEnd(18)} real ${String(allReal).padStart(6)}  estimate ${String(allEst).padStart(6)}  ${pct(allEst, allReal)}`);
let seed = 42; // the same pseudo-random bytes as test/tokens/token-estimator.test.ts
const nextByte = () => {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
  return seed >>> 24;
};
const random = Buffer.from(Array.from({ length: 24_000 }, nextByte));
for (const [name, text] of [
  ['random hex', random.toString('hex')],
  ['random base64', random.toString('base64')],
]) {
  const e = estimateText(text);
  const r = realTokens(text);
  console.log(`  ${name.padEnd(18)} real ${String(r).padStart(6)}  estimate ${String(e).padStart(6)}  ${pct(e, r)}`);
}

// ---- a ~1 M-token history -------------------------------------------------------------------
const tools: ToolDefinition[] = ['read_file', 'write_file', 'edit_file', 'bash', 'grep', 'glob'].map((name) => ({
  name,
  description: `The ${name} tool. `.repeat(20),
  input_schema: { type: 'object', properties: { path: { type: 'string' }, command: { type: 'string' } } },
}));

let seq = 0;
/** A tool call and its result: a fresh slice of the corpus (new string objects every time). */
function toolTurn(size: number): Message[] {
  const i = seq++;
  const source = corpus[i % corpus.length].text;
  const start = (i * 997) % Math.max(1, source.length - size);
  const output = `${source.slice(start, start + size)}\n[turn ${i}]`;
  const id = `toolu_${i.toString(36).padStart(10, '0')}`;
  return [
    { role: 'assistant', content: `Step ${i}: reading the next file.`, tool_calls: [{ id, name: 'read_file', args: JSON.stringify({ path: `src/module-${i}.ts` }) }] },
    { role: 'tool', tool_call_id: id, name: 'read_file', content: output },
  ];
}

const history: Message[] = [
  { role: 'system', content: corpus.find((c) => c.name === 'prose.md')!.text.slice(0, 8_000) },
  { role: 'user', content: 'Refactor the loop and keep every test green.' },
];
const scratch = new TokenEstimator();
let tokens = 0;
while (tokens < 1_000_000) {
  const turn = toolTurn(4_000 + ((seq * 1_237) % 12_000));
  for (const m of turn) tokens += scratch.message(m);
  history.push(...turn);
}
const chars = history.reduce((n, m) => n + m.content.length, 0);
console.log(
  `\nhistory: ${history.length} messages, ${(chars / 1e6).toFixed(2)} M chars, ~${scratch.request({ messages: history, tools }).toLocaleString('en-US')} estimated tokens`,
);

// ---- cold full estimate ---------------------------------------------------------------------
const cold: number[] = [];
for (let r = 0; r < 7; r++) {
  const est = new TokenEstimator();
  const t = performance.now();
  est.request({ messages: history, tools });
  cold.push(performance.now() - t);
}
const tokenizerCold: number[] = [];
for (let r = 0; r < 3; r++) {
  const t = performance.now();
  for (const m of history) realTokens(m.content);
  tokenizerCold.push(performance.now() - t);
}
console.log(`cold full estimate (new estimator, every message counted): median ${ms(median(cold))}`);
console.log(`  same history through gpt-tokenizer (contents only): median ${ms(median(tokenizerCold))}; import ${ms(tokenizerImportMs)}`);

// ---- per-iteration estimate after one new tool result -----------------------------------------
function perIteration(label: string, resultChars: number, corrected: boolean): void {
  const est = new TokenEstimator();
  const meter = new ContextMeter(est);
  const messages = [...history];
  meter.estimate(messages, tools); // warm: the loop has estimated this history before
  const times: number[] = [];
  for (let r = 0; r < 41; r++) {
    if (corrected) meter.observe(1_000_000, messages.length, messages);
    messages.push(...toolTurn(resultChars));
    const t = performance.now();
    meter.estimate(messages, tools);
    times.push(performance.now() - t);
  }
  console.log(`  ${label.padEnd(52)} median ${ms(median(times))}  max ${ms(Math.max(...times))}`);
}
console.log('per-iteration estimate after one new tool turn on the ~1 M-token history (target < 5 ms):');
perIteration('4 KB tool result, local estimate (cached prefix)', 4_000, false);
perIteration('4 KB tool result, corrected by reported usage', 4_000, true);
perIteration('32 KB tool result, local estimate (cached prefix)', 32_000, false);
