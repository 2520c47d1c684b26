/**
 * What prompt caching makes of a long session, per provider: a scripted session (TURNS turns of
 * STEPS tool steps — reads, edits, commands — each turn a `keen run --continue`, with automatic
 * compactions in a small window and one `keen compact --continue` (the headless `/compact`) after
 * turn MANUAL_AFTER) spawned against each provider's loopback fake, which records every request.
 * The requests are then billed the way each service documents its cache:
 *
 * - Anthropic, Bedrock: a prefix is cached up to a breakpoint (`cache_control`, `cachePoint`) of
 *   at least 1,024 tokens; a request reads the longest cached prefix ending at one of its
 *   breakpoints or up to 20 blocks before one, and writes from there to its last breakpoint.
 * - OpenAI (Chat Completions and Responses): automatic prefix caching of prompts of 1,024 tokens
 *   or more, in 128-token steps.
 * - Gemini: implicit prefix caching of 1,024 tokens or more.
 *
 * The ideal: every request reads the longest prefix it shares with an earlier request, and (with
 * breakpoints) writes only what a later request reads. Tokens are Keen's estimate of each block's
 * JSON; prices are the list prices of src/config/prices.ts; output (thinking's own output tokens
 * included) is left out of every cost and every ideal. The Anthropic and Bedrock fakes report the
 * input the service would (`--usage service`, {@link serviceUsage}): Keen's compaction trigger
 * reads it.
 *
 * Then the thinking run (Anthropic, Bedrock, OpenAI Responses): the same session with a 16k
 * thinking budget under a 32k output limit (Responses: reasoning effort `medium`), every reply
 * opening with a signed thinking block (Responses: a reasoning item with encrypted content) of a
 * realistic size ({@link thinkingTokens}), replayed in the history like any block. Anthropic and
 * Bedrock drop the cached messages when the thinking parameters change, so they are hashed in
 * front of the messages (the Responses effort likewise, to be safe). Anthropic and Bedrock drop
 * earlier turns' thinking on the models that documents say do ({@link stripsPreviousThinking}),
 * unless the request carries the keep-all context edit (Keen sends it to those models):
 * the bill leaves it out, and the cache breaks where it was. Its cost is set against the ideal of
 * the same session without thinking, and decomposed: the thinking blocks' own cost, the summary
 * requests, the rest, and the no-thinking session's distance from its ideal.
 *
 *   npm run build && npx tsx bench/cache-session.ts [provider…] [--window N --steps N --turns N]
 *     [--thinking-size small|realistic] [--previous-thinking model|keep|strip] [--usage service|fake]
 *
 * `KEEN_BENCH_BIN` runs another checkout's keen (an A/B against main).
 */
import { createHash } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { priceOf, type Price } from '../src/config/prices.js';
import { estimateText } from '../src/tokens/token-estimator.js';
import { startAnthropicFake } from '../test/fakes/anthropic-fake.js';
import { startBedrockFake } from '../test/fakes/bedrock-fake.js';
import { startGeminiFake } from '../test/fakes/gemini-fake.js';
import { startOpenAIChatFake } from '../test/fakes/openai-chat-fake.js';
import { startOpenAIResponsesFake } from '../test/fakes/openai-responses-fake.js';
import type { FakeReply, RecordedRequest } from '../test/fakes/script.js';
import type { ScriptedServer } from '../test/fakes/scripted-server.js';
import { cleanEnv, KEEN_BIN, requireBuilt, ROOT } from './common.js';

/** `--turns N --steps N --window N --thinking-size small|realistic --previous-thinking model|keep|strip --usage service|fake`. */
const OPTS = (() => {
  try {
    return parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`cache-session: ${(e as Error).message}`);
    process.exit(2);
  }
})();
const TURNS = OPTS.turns;
const STEPS = OPTS.steps;
const WINDOW = OPTS.window;
/** The manual compaction (`keen compact --continue`) runs after this turn. */
const MANUAL_AFTER = 2;
const COMPACTION_MARKER = 'This is a context compaction';
/** The thinking run: issue 29's budget and output limit. */
const THINKING = { budget: 16_000, maxOutputTokens: 32_000 };

interface Options {
  turns: number;
  steps: number;
  window: number;
  /** `small`: ~10-token thinking blocks (the bench before session 24); `realistic`: {@link thinkingTokens}. */
  thinkingSize: 'small' | 'realistic';
  /** `model`: the model's documented rule ({@link stripsPreviousThinking}) and the request's keep-all edit; `keep`, `strip`: force one. */
  previousThinking: 'model' | 'keep' | 'strip';
  /** `service`: the Anthropic and Bedrock fakes report the input the service bills; `fake`: their own counts. */
  usage: 'service' | 'fake';
  providers: string[];
}

function parseArgs(argv: string[]): Options {
  const o: Options = { turns: 4, steps: 30, window: 60_000, thinkingSize: 'realistic', previousThinking: 'model', usage: 'service', providers: [] };
  const num = (flag: string, v: string | undefined) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} takes a positive integer, not ${v ?? 'nothing'}`);
    return n;
  };
  const pick = <T extends string>(flag: string, v: string | undefined, allowed: readonly T[]): T => {
    if (!allowed.includes(v as T)) throw new Error(`${flag} takes ${allowed.join('|')}, not ${v ?? 'nothing'}`);
    return v as T;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--turns') o.turns = num(a, argv[++i]);
    else if (a === '--steps') o.steps = num(a, argv[++i]);
    else if (a === '--window') o.window = num(a, argv[++i]);
    else if (a === '--thinking-size') o.thinkingSize = pick(a, argv[++i], ['small', 'realistic'] as const);
    else if (a === '--previous-thinking') o.previousThinking = pick(a, argv[++i], ['model', 'keep', 'strip'] as const);
    else if (a === '--usage') o.usage = pick(a, argv[++i], ['service', 'fake'] as const);
    else if (a.startsWith('--')) throw new Error(`unknown flag ${a}`);
    else o.providers.push(a);
  }
  return o;
}

/**
 * Whether the service drops the thinking of earlier assistant turns (before the last user message
 * that is not only tool results) from the context, neither showing nor billing it as input. The
 * context-windows page (platform.claude.com/docs/en/build-with-claude/context-windows, "extended
 * thinking"): "The API automatically excludes thinking blocks from previous turns when you pass
 * them back", `context_window = (input_tokens - previous_thinking_tokens) + current_turn_tokens`;
 * the current turn's tool loop keeps its thinking. Which models: the extended-thinking page (via
 * context editing's `clear_thinking` default): Opus 4.5 and later and Sonnet 4.6 and later keep
 * every earlier turn's thinking; Sonnet 4.5 and earlier, Haiku through 4.5, Opus 4.1 and earlier
 * keep only the current turn's. Clearing invalidates the cache where it happens (context-editing
 * page, "Context editing and prompt caching"): the bill hashes the blocks the service keeps.
 * Unknown models keep (the bill is then an upper bound).
 */
function stripsPreviousThinking(model: string): boolean {
  const m = /claude-(opus|sonnet|haiku)-(\d+)(?:-(\d+))?/.exec(model);
  if (!m) return /claude-3-/.test(model);
  const minor = m[3] && m[3].length < 3 ? Number(m[3]) : 0;
  const v = Number(m[2]) + minor / 10;
  if (m[1] === 'opus') return v < 4.5;
  if (m[1] === 'sonnet') return v < 4.6;
  return v < 5;
}

/** One block of a request in the service's prefix order, and whether a breakpoint follows it. */
interface Block {
  json: string;
  tokens: number;
  breakpoint: boolean;
  /** A thinking block (reasoning item) replayed in the history. */
  thinking?: boolean;
}

type Caching = 'breakpoints' | 'openai' | 'gemini';

type Obj = Record<string, unknown>;
/** The parts of the four request bodies the accounting reads. */
interface WireBody {
  thinking?: unknown;
  context_management?: unknown;
  additionalModelRequestFields?: unknown;
  tools?: Obj[];
  system?: Obj[];
  messages?: { role: string; content?: Obj[] }[];
  toolConfig?: { tools?: Obj[] };
  systemInstruction?: unknown;
  contents?: { role: string; parts?: Obj[] }[];
  reasoning?: unknown;
  instructions?: string;
  input?: Obj[];
}

interface Case {
  name: string;
  provider: string;
  model: string;
  caching: Caching;
  start(): Promise<ScriptedServer>;
  baseURL(f: ScriptedServer): string;
  env: Record<string, string>;
  /** The request's blocks as the service bills them; `strip`: it drops earlier turns' thinking. */
  blocks(body: WireBody, strip: boolean): Block[];
}

const strip = (v: unknown) => JSON.stringify(v, (k, x) => (k === 'cache_control' ? undefined : x));
const block = (v: unknown, breakpoint = false): Block => {
  const json = strip(v);
  return { json, tokens: estimateText(json), breakpoint };
};

/**
 * The index of the message that starts the current turn: the last user message holding more than
 * tool results (`isResult` tells a tool result block; `skip` a block that carries no content).
 */
function turnStart(messages: { role: string; content?: Obj[] }[], isResult: (c: Obj) => boolean, skip: (c: Obj) => boolean = () => false): number {
  return messages.findLastIndex((m) => m.role === 'user' && (m.content ?? []).some((c) => !skip(c) && !isResult(c)));
}

/**
 * Anthropic: tools, system, messages; a block with `cache_control` ends a cached prefix. With
 * `strip`, thinking before the current turn is left out ({@link stripsPreviousThinking}).
 */
function anthropicBlocks(body: WireBody, strip: boolean): Block[] {
  const out: Block[] = [];
  for (const t of body.tools ?? []) out.push(block(t, !!t.cache_control));
  for (const s of body.system ?? []) out.push(block(s, !!s.cache_control));
  out.push(paramsBlock(body.thinking));
  const messages = body.messages ?? [];
  const start = strip ? turnStart(messages, (c) => c.type === 'tool_result') : -1;
  messages.forEach((m, i) => {
    for (const c of m.content ?? []) {
      const thinking = c.type === 'thinking' || c.type === 'redacted_thinking';
      if (thinking && i < start) continue;
      out.push({ ...block({ role: m.role, c }, !!c.cache_control), thinking });
    }
  });
  return out;
}

/** The thinking parameters, hashed before the messages (a change drops their cache) and billed as nothing. */
function paramsBlock(thinking: unknown): Block {
  return { json: JSON.stringify({ thinking: thinking ?? null }), tokens: 0, breakpoint: false };
}

/** Bedrock: the same order and rule; a `cachePoint` block marks the end of the block before it. */
function bedrockBlocks(body: WireBody, strip: boolean): Block[] {
  const out: Block[] = [];
  const add = (items: Obj[], wrap: (x: Obj) => unknown, dropThinking = false) => {
    for (const x of items) {
      if ('cachePoint' in x) {
        if (out.length) out[out.length - 1].breakpoint = true;
      } else if (!(dropThinking && 'reasoningContent' in x)) out.push({ ...block(wrap(x)), thinking: 'reasoningContent' in x });
    }
  };
  add(body.toolConfig?.tools ?? [], (x) => x);
  add(body.system ?? [], (x) => x);
  out.push(paramsBlock(body.additionalModelRequestFields));
  const messages = body.messages ?? [];
  const start = strip
    ? turnStart(
        messages,
        (c) => 'toolResult' in c,
        (c) => 'cachePoint' in c,
      )
    : -1;
  messages.forEach((m, i) => {
    add(m.content ?? [], (c) => ({ role: m.role, c }), i < start);
  });
  return out;
}

/** OpenAI Chat: tools, then each message (the cache sees tokens; a message is a fine enough unit). */
function openaiBlocks(body: WireBody): Block[] {
  return [...(body.tools ?? []).map((t: unknown) => block(t)), ...(body.messages ?? []).map((m: unknown) => block(m))];
}

/**
 * OpenAI Responses: the reasoning parameters (hashed, billed as nothing), tools, the instructions,
 * then each input item. A reasoning item is billed by its text, not by its encrypted copy (the
 * fake's is the text in base64, the service's an opaque blob of the same reasoning).
 */
function responsesBlocks(body: WireBody): Block[] {
  const out: Block[] = [{ json: JSON.stringify({ reasoning: body.reasoning ?? null }), tokens: 0, breakpoint: false }];
  for (const t of body.tools ?? []) out.push(block(t));
  if (body.instructions) out.push(block(body.instructions));
  for (const item of body.input ?? []) {
    const { encrypted_content: _, ...billed } = item;
    out.push({ json: JSON.stringify(item), tokens: estimateText(JSON.stringify(billed)), breakpoint: false, thinking: item.type === 'reasoning' });
  }
  return out;
}

/** Gemini: tools, the system instruction, then each part of each content. */
function geminiBlocks(body: WireBody): Block[] {
  const out: Block[] = [...(body.tools ?? []).map((t: unknown) => block(t))];
  if (body.systemInstruction) out.push(block(body.systemInstruction));
  for (const c of body.contents ?? []) for (const p of c.parts ?? []) out.push(block({ role: c.role, p }));
  return out;
}

const CASES: Case[] = [
  {
    name: 'anthropic',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    caching: 'breakpoints',
    start: startAnthropicFake,
    baseURL: (f) => f.url,
    env: { ANTHROPIC_API_KEY: 'sk-bench-0000' },
    blocks: anthropicBlocks,
  },
  {
    name: 'openai',
    provider: 'openai',
    model: 'gpt-5',
    caching: 'openai',
    start: startOpenAIChatFake,
    baseURL: (f) => `${f.url}/v1`,
    env: { OPENAI_API_KEY: 'sk-bench-0000' },
    blocks: openaiBlocks,
  },
  {
    name: 'openai-responses',
    provider: 'openai-responses',
    model: 'gpt-5',
    caching: 'openai',
    start: startOpenAIResponsesFake,
    baseURL: (f) => `${f.url}/v1`,
    env: { OPENAI_API_KEY: 'sk-bench-0000' },
    blocks: responsesBlocks,
  },
  {
    name: 'bedrock',
    provider: 'bedrock',
    model: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    caching: 'breakpoints',
    start: startBedrockFake,
    baseURL: (f) => f.url,
    env: {
      AWS_ACCESS_KEY_ID: 'AKIDBENCH',
      AWS_SECRET_ACCESS_KEY: 'bench-secret',
      AWS_REGION: 'us-east-1',
      AWS_CONFIG_FILE: '/nonexistent/keen-bench/aws-config',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/keen-bench/aws-credentials',
      AWS_EC2_METADATA_DISABLED: 'true',
    },
    blocks: bedrockBlocks,
  },
  {
    name: 'gemini',
    provider: 'genkit',
    model: 'gemini-2.5-flash',
    caching: 'gemini',
    start: startGeminiFake,
    baseURL: (f) => f.url,
    env: { GEMINI_API_KEY: 'bench-gemini-key' },
    blocks: geminiBlocks,
  },
];

// ---- the scripted session -----------------------------------------------------------------------

/** The project the session works on: a copy of some of Keen's own sources (none quoting the compaction prompt), committed. */
function project(): { cwd: string; home: string; files: string[]; cleanup(): void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-bench-cache-'));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { recursive: true });
  const files: string[] = [];
  for (const dir of ['src/project', 'src/tools']) {
    for (const f of fs.readdirSync(path.join(ROOT, dir)).filter((n) => n.endsWith('.ts'))) {
      const rel = path.join(dir, f);
      fs.mkdirSync(path.join(cwd, dir), { recursive: true });
      fs.copyFileSync(path.join(ROOT, rel), path.join(cwd, rel));
      files.push(rel);
    }
  }
  const git = (...args: string[]) => spawnSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@example.invalid', ...args], { cwd, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'init');
  return { cwd, home, files, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** Step `i` of a turn: mostly reads, an edit every fifth step, a command every seventh. */
function step(turn: number, i: number, files: string[]): FakeReply {
  const id = `t${turn}s${i}`;
  if (i === STEPS) return { steps: [{ text: `Turn ${turn} done.` }] };
  if (i % 5 === 4) {
    const file = `notes/turn-${turn}-${i}.md`;
    return { steps: [{ text: 'Writing a note. ' }, { toolCall: { id, name: 'write_file', args: { path: file, content: `# Note ${turn}.${i}\n${'detail '.repeat(40)}\n` } } }] };
  }
  if (i % 7 === 6) return { steps: [{ toolCall: { id, name: 'bash', args: { command: 'ls -R src | head -40 && git status --short | head' } } }] };
  const file = files[(turn * STEPS + i) % files.length];
  return { steps: [{ text: `Reading ${file}. ` }, { toolCall: { id, name: 'read_file', args: { path: file } } }] };
}

const SUMMARY = `## Goal\nWork through the sources.\n\n## Discoveries\n${'- a fact about the code\n'.repeat(30)}`;

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [KEEN_BIN, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/**
 * Thinking tokens of a reply in the thinking run: ~1,500 when the model plans a turn (its first
 * reply) or writes the summary, ~400 for a routine tool step (read, note, command) and for the
 * turn's closing answer. A 16k budget is a ceiling: on steps like these a model thinks a few
 * hundred tokens, more when it plans (the budget caps, it does not fill).
 */
function thinkingTokens(kind: 'plan' | 'step' | 'summary'): number {
  if (OPTS.thinkingSize === 'small') return 10;
  return kind === 'step' ? 400 : 1500;
}

const WORDS = [
  'the',
  'file',
  'reads',
  'next',
  'so',
  'check',
  'which',
  'module',
  'calls',
  'this',
  'then',
  'note',
  'what',
  'changed',
  'tests',
  'cover',
  'edge',
  'case',
  'before',
  'editing',
];

/** ~`tokens` tokens of varied prose (about four characters a token), different for each `n`. */
function thinkingText(n: number, tokens: number): string {
  let seed = n * 2654435761;
  const words: string[] = [`Reply ${n}:`];
  let chars = words[0].length;
  while (chars < tokens * 4) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const w = WORDS[seed % WORDS.length];
    words.push(w);
    chars += w.length + 1;
  }
  return words.join(' ');
}

/** A reply of the thinking run: a thinking block first, as a model with thinking on answers. */
const thoughtful = (reply: FakeReply, n: number, tokens: number): FakeReply => ({ ...reply, steps: [{ thinking: thinkingText(n, tokens) }, ...(reply.steps ?? [])] });

/** The thinking blocks a request sends that the service drops (earlier turns' thinking, {@link stripsPreviousThinking}). */
function droppedThinking(c: Case, body: WireBody): Obj[] {
  const messages = body.messages ?? [];
  const bedrock = c.name === 'bedrock';
  const start = bedrock
    ? turnStart(
        messages,
        (x) => 'toolResult' in x,
        (x) => 'cachePoint' in x,
      )
    : turnStart(messages, (x) => x.type === 'tool_result');
  const isThinking = (x: Obj) => (bedrock ? 'reasoningContent' in x : x.type === 'thinking' || x.type === 'redacted_thinking');
  return messages.slice(0, Math.max(0, start)).flatMap((m) => (m.content ?? []).filter(isThinking));
}

/**
 * The usage a reply reports, as the service would: the Anthropic fake's count (a quarter of the
 * characters of system, messages and tools), on Bedrock too (whose fake reports no input, so
 * Keen fell back to its own estimate), less the thinking the service drops.
 */
function serviceUsage(c: Case, req: RecordedRequest, strip: boolean, reply: FakeReply): FakeReply {
  if (OPTS.usage === 'fake' || c.caching !== 'breakpoints') return reply;
  const body = req.body as WireBody;
  const tools = c.name === 'bedrock' ? (body.toolConfig ?? []) : (body.tools ?? []);
  const chars = JSON.stringify([body.system ?? '', body.messages ?? [], tools]).length;
  const dropped = strip ? droppedThinking(c, body).reduce((n, x) => n + JSON.stringify(x).length + 1, 0) : 0;
  return { ...reply, usage: { input: Math.ceil((chars - dropped) / 4), output: Math.max(1, Math.ceil(JSON.stringify(reply.steps ?? []).length / 4)) } };
}

async function runSession(c: Case, thinking = false): Promise<RecordedRequest[]> {
  const fake = await c.start();
  const ws = project();
  try {
    const maxOutputTokens = thinking ? THINKING.maxOutputTokens : 4000;
    const config = {
      models: { bench: { provider: c.provider, id: c.model, baseURL: c.baseURL(fake), contextWindow: WINDOW, maxOutputTokens } },
      model: 'bench',
      ...(thinking ? { thinkingBudget: THINKING.budget } : {}),
    };
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify(config));
    let turn = 0;
    let i = 0;
    let replies = 0;
    fake.setResponder((req) => {
      const summary = JSON.stringify(req.body).includes(COMPACTION_MARKER) || JSON.stringify(req.body).includes('context summarization assistant');
      const reply = summary ? { steps: [{ text: SUMMARY }] } : step(turn, ++i, ws.files);
      const full = thinking ? thoughtful(reply, ++replies, thinkingTokens(summary ? 'summary' : i === 1 ? 'plan' : 'step')) : reply;
      return serviceUsage(c, req, thinking && stripsThinking(c, req.body), full);
    });
    for (turn = 1; turn <= TURNS; turn++) {
      i = 0;
      const args = ['run', '--yolo', ...(turn > 1 ? ['--continue'] : []), `Turn ${turn}: read the sources, take notes.`];
      // Spawned asynchronously: the fake answers from this process.
      const r = await run(args, ws.cwd, { ...cleanEnv(), ...c.env, KEEN_HOME: ws.home });
      if (process.env.KEEN_BENCH_DEBUG)
        console.error(
          turn,
          i,
          fake.requests.length,
          r.stderr
            .split('\n')
            .filter((l) => !/deprecat|migrate/.test(l))
            .join('\n')
            .slice(-600),
        );
      if (r.code !== 0) throw new Error(`${c.name}: keen run exited ${r.code}: ${r.stderr.trim().split('\n').at(-1)}`);
      if (turn === MANUAL_AFTER) {
        const m = await run(['compact', '--continue'], ws.cwd, { ...cleanEnv(), ...c.env, KEEN_HOME: ws.home });
        if (m.code !== 0) throw new Error(`${c.name}: keen compact exited ${m.code}: ${m.stderr.trim().split('\n').at(-1)}`);
      }
    }
    return fake.requests.filter((r) => r.method === 'POST');
  } finally {
    ws.cleanup();
    await fake.close();
  }
}

// ---- the accounting -----------------------------------------------------------------------------

interface Bill {
  requests: number;
  input: number;
  read: number;
  write: number;
  uncached: number;
  cost: number;
  /** What the replayed thinking blocks cost (their tokens at the rate each was billed at). */
  thinkingCost: number;
  /** What the summary requests cost, their thinking left out (it is in `thinkingCost`). */
  summaryCost: number;
}

/** Running prefix hashes and token sums of a request's blocks. */
function prefixes(blocks: Block[]): { hash: string[]; tokens: number[] } {
  const hash: string[] = [];
  const tokens: number[] = [];
  const h = createHash('sha256');
  let sum = 0;
  for (const b of blocks) {
    h.update(b.json);
    h.update('\u0000');
    hash.push(h.copy().digest('hex'));
    sum += b.tokens;
    tokens.push(sum);
  }
  return { hash, tokens };
}

const MIN_CACHED = 1024;
const LOOKBACK = 20;

function bill(caching: Caching, requests: Block[][], price: Price, summary: boolean[]): { actual: Bill; ideal: Bill } {
  const actual: Bill = { requests: requests.length, input: 0, read: 0, write: 0, uncached: 0, cost: 0, thinkingCost: 0, summaryCost: 0 };
  const ideal: Bill = { ...actual };
  const pre = requests.map(prefixes);
  const cached = new Set<string>();
  const seen = new Set<string>();
  const at = (r: number, j: number) => (j < 0 ? 0 : pre[r].tokens[j]);
  // What a later request reads of request r's prefix (the ideal writes exactly that).
  const laterRead = requests.map(() => -1);
  for (let r = 0; r < requests.length; r++) {
    const own = new Set(pre[r].hash);
    for (let q = 0; q < r; q++) laterRead[q] = Math.max(laterRead[q], longestIn(pre[q].hash, own));
  }
  for (let r = 0; r < requests.length; r++) {
    const total = at(r, requests[r].length - 1);
    const shared = at(r, longestIn(pre[r].hash, seen));
    actual.input += total;
    ideal.input += total;
    let read = 0;
    let write = 0;
    if (caching === 'breakpoints') {
      const marks = requests[r].flatMap((b, j) => (b.breakpoint ? [j] : []));
      let hit = -1;
      for (const b of marks) for (let j = b; j >= Math.max(0, b - LOOKBACK); j--) if (cached.has(pre[r].hash[j])) hit = Math.max(hit, j);
      read = at(r, hit);
      const last = marks.at(-1);
      if (last !== undefined && at(r, last) >= MIN_CACHED) write = Math.max(0, at(r, last) - read);
      for (const b of marks) if (at(r, b) >= MIN_CACHED) cached.add(pre[r].hash[b]);
      const idealWrite = Math.max(0, at(r, laterRead[r]) - shared);
      ideal.read += shared;
      ideal.write += idealWrite;
      ideal.uncached += total - shared - idealWrite;
    } else {
      read = shared >= MIN_CACHED ? (caching === 'openai' ? Math.floor(shared / 128) * 128 : shared) : 0;
      ideal.read += shared;
      ideal.uncached += total - shared;
    }
    for (const h of pre[r].hash) seen.add(h);
    // Each block at the rate of the part it falls in: read up to `read`, written up to `read + write`, then new input.
    let thinkingCost = 0;
    requests[r].forEach((b, j) => {
      if (!b.thinking) return;
      const end = at(r, j);
      thinkingCost += (end <= read ? price.cacheRead : end <= read + write ? price.cacheWrite : price.input) * b.tokens;
    });
    actual.thinkingCost += thinkingCost / 1e6;
    if (summary[r]) actual.summaryCost += (read * price.cacheRead + write * price.cacheWrite + (total - read - write) * price.input - thinkingCost) / 1e6;
    actual.read += read;
    actual.write += write;
    actual.uncached += total - read - write;
  }
  const cost = (b: Bill) => (b.read * price.cacheRead + b.write * price.cacheWrite + b.uncached * price.input) / 1e6;
  actual.cost = cost(actual);
  ideal.cost = cost(ideal);
  return { actual, ideal };
}

/** The index of the longest prefix (of the hashes) found in `set`, or -1. */
function longestIn(hash: string[], set: Set<string>): number {
  for (let j = hash.length - 1; j >= 0; j--) if (set.has(hash[j])) return j;
  return -1;
}

// ---- main ---------------------------------------------------------------------------------------

requireBuilt();
const only = OPTS.providers;
const k = (n: number) => `${(n / 1000).toFixed(1)}k`;

/**
 * Whether this run bills the request with earlier turns' thinking dropped (Anthropic and Bedrock
 * only). `model`: by the model's rule, unless the request carries the keep-all context edit
 * ({@link keepsAllThinking}), which the service honours; `strip` forces the drop whatever the
 * request asks (the cost without the edit).
 */
function stripsThinking(c: Case, body: WireBody): boolean {
  if (c.caching !== 'breakpoints') return false;
  return OPTS.previousThinking === 'model' ? stripsPreviousThinking(c.model) && !keepsAllThinking(body) : OPTS.previousThinking === 'strip';
}

/** Whether the request asks the service to keep every earlier turn's thinking (`clear_thinking_20251015`, `keep: "all"`). */
function keepsAllThinking(body: WireBody): boolean {
  const fields = body.additionalModelRequestFields as { context_management?: unknown } | undefined;
  const management = (body.context_management ?? fields?.context_management) as { edits?: Obj[] } | undefined;
  return !!management?.edits?.some((e) => e.type === 'clear_thinking_20251015' && e.keep === 'all');
}

/** How the session's earlier turns' thinking was billed: dropped, kept at the request's ask, or kept by the model. */
function earlierThinking(c: Case, requests: RecordedRequest[]): string {
  if (requests.some((r) => stripsThinking(c, r.body))) return 'dropped';
  return c.caching === 'breakpoints' && requests.some((r) => keepsAllThinking(r.body)) ? 'kept (keep-all edit)' : 'billed';
}

interface Measured {
  requests: RecordedRequest[];
  summaries: number;
  /** Input tokens that were replayed thinking blocks. */
  thinkingInput: number;
  actual: Bill;
  ideal: Bill;
}

async function measure(c: Case, thinking: boolean): Promise<Measured> {
  const requests = await runSession(c, thinking);
  const summary = requests.map((r) => JSON.stringify(r.body).includes(COMPACTION_MARKER));
  const summaries = summary.filter(Boolean).length;
  const price = priceOf(c.model);
  if (!price) throw new Error(`no price for ${c.model}`);
  const blocks = requests.map((r) => c.blocks(r.body, thinking && stripsThinking(c, r.body)));
  const { actual, ideal } = bill(c.caching, blocks, price, summary);
  const thinkingInput = blocks.flat().reduce((sum, b) => sum + (b.thinking ? b.tokens : 0), 0);
  return { requests, summaries, thinkingInput, actual, ideal };
}

function row(name: string, m: Measured, against: Bill): string {
  const { actual } = m;
  return [
    name.padEnd(16),
    String(actual.requests).padStart(4),
    String(m.summaries).padStart(10),
    k(actual.input).padStart(8),
    k(actual.read).padStart(9),
    k(actual.write).padStart(9),
    k(actual.uncached).padStart(9),
    `$${actual.cost.toFixed(3)}`.padStart(9),
    `$${against.cost.toFixed(3)}`.padStart(9),
    `${(actual.cost / against.cost).toFixed(3)}×`.padStart(8),
  ].join(' ');
}

/** The thinking parameters the session sent, each distinct form once. */
function thinkingForms(requests: RecordedRequest[]): string {
  const forms = new Set(requests.map((r) => JSON.stringify(r.body.thinking ?? r.body.additionalModelRequestFields?.thinking ?? r.body.reasoning ?? null)));
  return [...forms].join(' ');
}

console.log(
  `${TURNS} turns × ${STEPS} steps, window ${WINDOW}, /compact after turn ${MANUAL_AFTER}; tokens estimated; input-side cost at list prices; usage reported: ${OPTS.usage}\n`,
);
console.log('provider         reqs  summaries  input     read      write    uncached  cost      ideal     ratio');
const plain = new Map<string, Measured>();
for (const c of CASES.filter((x) => only.length === 0 || only.includes(x.name))) {
  const m = await measure(c, false);
  plain.set(c.name, m);
  console.log(row(c.name, m, m.ideal));
}

const withThinking = CASES.filter((x) => (x.caching === 'breakpoints' || x.name === 'openai-responses') && plain.has(x.name));
if (withThinking.length > 0) {
  console.log(`\nthinking budget ${THINKING.budget}, output limit ${THINKING.maxOutputTokens}: cost against the ideal of the same session without thinking`);
  console.log(`thinking blocks ${OPTS.thinkingSize}; earlier turns' thinking: ${OPTS.previousThinking} (model: per its documented rule and the request's keep-all edit)`);
  console.log(
    "provider         reqs  summaries  input     read      write    uncached  cost      ideal     ratio   (own ideal)  thinking in input  earlier turns' thinking  thinking sent",
  );
  const thought = new Map<string, Measured>();
  for (const c of withThinking) {
    const m = await measure(c, true);
    thought.set(c.name, m);
    const share = `${k(m.thinkingInput)} (${((100 * m.thinkingInput) / m.actual.input).toFixed(1)} %)`;
    console.log(
      `${row(c.name, m, plain.get(c.name)!.ideal)}   ${`${(m.actual.cost / m.ideal.cost).toFixed(3)}×`.padStart(8)}     ${share.padStart(17)}  ${earlierThinking(c, m.requests).padStart(22)}  ${thinkingForms(m.requests)}`,
    );
  }
  // Where the ratio comes from, in % of the no-thinking ideal: the thinking blocks' own cost, the
  // summary requests and the rest of the requests (their non-thinking content) against the
  // session without thinking, and that session's own distance from its ideal.
  console.log('\nthe ratio to the no-thinking ideal, decomposed (% of that ideal)');
  console.log('provider         thinking  summaries  rest      no-thinking cache  = ratio');
  const pct = (x: number, of: number) => `${x >= 0 ? '+' : ''}${((100 * x) / of).toFixed(1)} %`;
  for (const [name, m] of thought) {
    const p = plain.get(name)!;
    const base = p.ideal.cost;
    const rest = (b: Bill) => b.cost - b.thinkingCost - b.summaryCost;
    console.log(
      [
        name.padEnd(16),
        pct(m.actual.thinkingCost, base).padStart(8),
        pct(m.actual.summaryCost - p.actual.summaryCost, base).padStart(10),
        pct(rest(m.actual) - rest(p.actual), base).padStart(9),
        pct(p.actual.cost - base, base).padStart(18),
        `${(m.actual.cost / base).toFixed(3)}×`.padStart(9),
      ].join(' '),
    );
  }
}
