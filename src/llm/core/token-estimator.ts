/**
 * Local token estimates for the context budget: cheap, close to a real BPE tokenizer, and cached
 * per message so one tool-loop iteration costs O(new messages).
 *
 * Counting text: one pass that mirrors o200k's pre-tokenizer split (words with an optional
 * one-character prefix and camelCase boundaries, digit groups of up to three, punctuation runs,
 * whitespace runs) and prices each piece from tables fitted against `gpt-tokenizer`'s o200k
 * encoding. On the held-out mixed corpus it lands within ±6% per kind of text and ~1% overall
 * (random base64 is the worst case, ~12% low); see test/llm/token-estimator.test.ts and
 * bench/estimator.ts. Why not the tokenizer itself: it costs ~160–260 ms to import and is 4–10×
 * slower, and other providers' tokenizers differ from o200k anyway. {@link ContextMeter} corrects
 * the estimate with the usage each provider reports.
 */
import type { Message } from './message.js';
import type { ToolDefinition } from './provider.js';

// ---- character classes ----------------------------------------------------------------------

const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
const SPACE = 4;
const NEWLINE = 5;
const PUNCT = 6;
/** A letter or mark without case (Lo, Lm, M): joins words on either side of a case boundary. */
const UNCASED = 7;

const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  ASCII_CLASS[c] =
    c >= 65 && c <= 90 ? UPPER
    : c >= 97 && c <= 122 ? LOWER
    : c >= 48 && c <= 57 ? DIGIT
    : c === 10 || c === 13 ? NEWLINE
    : c === 32 || c === 9 || c === 11 || c === 12 ? SPACE
    : PUNCT;
}

const RE_UPPER = /[\p{Lu}\p{Lt}]/u;
const RE_LOWER = /\p{Ll}/u;
const RE_UNCASED = /[\p{Lm}\p{Lo}\p{M}]/u;
const RE_NUMBER = /\p{N}/u;
const RE_SPACE = /\s/u;
/** Classes of the non-ASCII code points seen so far (bounded by Unicode itself). */
const nonAsciiClass = new Map<number, number>();

function classOfCodePoint(cp: number): number {
  if (cp < 128) return ASCII_CLASS[cp];
  let k = nonAsciiClass.get(cp);
  if (k === undefined) {
    const ch = String.fromCodePoint(cp);
    k = RE_UPPER.test(ch) ? UPPER
      : RE_LOWER.test(ch) ? LOWER
      : RE_UNCASED.test(ch) ? UNCASED
      : RE_NUMBER.test(ch) ? DIGIT
      : RE_SPACE.test(ch) ? SPACE
      : PUNCT;
    nonAsciiClass.set(cp, k);
  }
  return k;
}

function classAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? ASCII_CLASS[c] : classOfCodePoint(text.codePointAt(i)!);
}

function widthAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff ? 2 : 1;
}

function isLetter(k: number): boolean {
  return k === UPPER || k === LOWER || k === UNCASED;
}

function isCjk(cp: number): boolean {
  return (cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0x3400 && cp <= 0x9fff) || (cp >= 0xac00 && cp <= 0xd7af) || (cp >= 0xf900 && cp <= 0xfaff) || cp >= 0x20000;
}

// ---- fitted prices (tokens per piece), from o200k on ~2.2 MB of mixed text --------------------
// Fitted on code (TS/JS, Python, C), JSON, Markdown, prose, diffs, shell output, hashes and
// base64 from outside this repository; checked on test/fixtures/estimator-corpus (held out).

/** ASCII word of 1..12 letters, by prefix kind: [none, space, other character]. */
const WORD_PRICE = [
  [0, 1, 1.09, 1.29, 1.22, 1.21, 1.22, 1.23, 1.34, 1.7, 2.03, 1.58, 1.69],
  [0, 1, 1.01, 1.06, 1.03, 1.08, 1.08, 1.27, 1.2, 1.26, 1.38, 1.3, 1.36],
  [0, 1.02, 1.28, 1.39, 1.3, 1.46, 1.43, 1.61, 1.96, 2.06, 2.26, 2.56, 2.79],
];
/** Tokens per letter of an ASCII word longer than 12 letters, by prefix kind. */
const LONG_WORD_RATE = [0.268, 0.105, 0.257];
const MAX_TABLE_WORD = 12;

/**
 * Added to a word's price by its shape: lower / Capitalised / UPPER / MIXed (two or more capitals
 * before lower case, as in base64), each plain or vowel-poor (fewer than one vowel in four
 * letters: hashes, abbreviations). Columns: length 1–2, 3, 4, 5–6, 7–9, 10+.
 */
const SHAPE_EXTRA = [
  [-0.01, -0.11, -0.06, -0.06, -0.09, -0.09], // lower
  [0, 0.15, 0.69, 0.12, 0.42, 2.65], // lower, vowel-poor
  [0.06, 0.18, -0.05, -0.06, -0.06, -0.35], // Capitalised
  [0, 0.66, 1.42, -0.01, 0.37, 1.68], // Capitalised, vowel-poor
  [0.07, 0.02, 0.19, 0.12, 1.1, 0.38], // UPPER
  [0, 0.24, 0.67, 0.78, 1.74, 0], // UPPER, vowel-poor
  [0, 0.4, 1.11, 1.51, 1.69, 0.43], // MIXed
  [0, 0.83, 1.35, 1.97, 2.83, 1.41], // MIXed, vowel-poor
];
const SHAPE_LENGTH_COLUMN = [0, 0, 0, 1, 2, 3, 3, 4, 4, 4];

/** Tokens per UTF-16 unit of a word holding CJK / other non-ASCII letters. */
const CJK_RATE = 0.807;
const OTHER_SCRIPT_RATE = 0.429;

/**
 * Punctuation run of 1..8 characters (leading space and trailing newlines/slashes included), by
 * variant: [plain, ends in a newline, starts with a space, both].
 */
const PUNCT_PRICE = [
  [0, 1, 1.01, 1.1, 1.67, 1.94, 2.25, 2.41, 3.28],
  [0, 1, 1, 1, 1.11, 1.75, 1.93, 3.09, 3.26],
  [0, 1, 1, 1.02, 1.19, 1.77, 2.34, 2.36, 2.92],
  [0, 1, 1.01, 1, 1.02, 1.11, 1.94, 2.29, 2.62],
];
const LONG_PUNCT_RATE = 0.246;
/** `-----`, `=====`, `*****`: o200k has long tokens for many repeated characters. */
const REPEATED_PUNCT_RATE = 0.079;

const VOWEL = new Uint8Array(128);
for (const ch of 'aeiouyAEIOUY') VOWEL[ch.charCodeAt(0)] = 1;

function asciiWordPrice(prefix: number, len: number, uppers: number, firstUpper: boolean, vowels: number): number {
  const base = len <= MAX_TABLE_WORD ? WORD_PRICE[prefix][len] : len * LONG_WORD_RATE[prefix];
  const shape = uppers === 0 ? 0 : uppers === 1 && firstUpper ? 2 : uppers === len ? 4 : 6;
  const poor = len >= 3 && vowels * 4 < len ? 1 : 0;
  const column = len < SHAPE_LENGTH_COLUMN.length ? SHAPE_LENGTH_COLUMN[len] : 5;
  return base + SHAPE_EXTRA[shape + poor][column];
}

function punctPrice(len: number, repeated: boolean, variant: number): number {
  if (repeated) return Math.max(1, len * REPEATED_PUNCT_RATE);
  return len <= 8 ? PUNCT_PRICE[variant][len] : Math.max(PUNCT_PRICE[0][8], len * LONG_PUNCT_RATE);
}

/** `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d` (any case) right after a word: length, or 0. */
function contractionLength(text: string, j: number): number {
  if (text.charCodeAt(j) !== 39) return 0;
  const a = text.charCodeAt(j + 1) | 0x20;
  const b = text.charCodeAt(j + 2) | 0x20;
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return 2; // s t m d
  if ((a === 0x72 && b === 0x65) || (a === 0x76 && b === 0x65) || (a === 0x6c && b === 0x6c)) return 3; // re ve ll
  return 0;
}

/** Estimated o200k token count of `text`. Pure; O(length). */
export function estimateText(text: string): number {
  const n = text.length;
  let total = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const k = c < 128 ? ASCII_CLASS[c] : classAt(text, i);

    // A word, optionally led by one space or punctuation character.
    let j = i;
    let prefix = 0;
    if (k === SPACE || k === PUNCT) {
      const w = widthAt(text, i);
      if (i + w < n && isLetter(classAt(text, i + w))) {
        prefix = c === 32 ? 1 : 2;
        j = i + w;
      }
    }
    if (prefix !== 0 || isLetter(k)) {
      const start = j;
      let sawLower = false;
      let nonAscii = false;
      let cjk = false;
      let uppers = 0;
      let vowels = 0;
      while (j < n) {
        const cc = text.charCodeAt(j);
        let kk: number;
        let w = 1;
        if (cc < 128) {
          kk = ASCII_CLASS[cc];
          vowels += VOWEL[cc];
        } else {
          const cp = text.codePointAt(j)!;
          kk = classOfCodePoint(cp);
          if (cp > 0xffff) w = 2;
          nonAscii = true;
          if (isCjk(cp)) cjk = true;
        }
        if (kk === UPPER) {
          if (sawLower) break; // camelCase boundary
          uppers++;
        } else if (kk === LOWER || kk === UNCASED) sawLower = true;
        else break;
        j += w;
      }
      const len = j - start;
      total += nonAscii
        ? Math.max(1, len * (cjk ? CJK_RATE : OTHER_SCRIPT_RATE))
        : asciiWordPrice(prefix, len, uppers, uppers > 0 && ASCII_CLASS[text.charCodeAt(start)] === UPPER, vowels);
      i = j + contractionLength(text, j);
      continue;
    }

    if (k === DIGIT) {
      let d = 0;
      while (j < n && d < 3 && classAt(text, j) === DIGIT) {
        j += widthAt(text, j);
        d++;
      }
      total += 1;
      i = j;
      continue;
    }

    // Punctuation run, optionally led by one space, followed by any newlines and slashes.
    if (k === PUNCT || (c === 32 && i + 1 < n && classAt(text, i + 1) === PUNCT)) {
      if (c === 32) j++;
      const coreStart = j;
      const first = text.charCodeAt(j);
      let repeated = true;
      while (j < n && classAt(text, j) === PUNCT) {
        if (text.charCodeAt(j) !== first) repeated = false;
        j += widthAt(text, j);
      }
      const coreLength = j - coreStart;
      while (j < n) {
        const cc = text.charCodeAt(j);
        if (cc === 10 || cc === 13 || cc === 47) j++;
        else break;
      }
      const last = text.charCodeAt(j - 1);
      const variant = (last === 10 || last === 13 ? 1 : 0) + (c === 32 ? 2 : 0);
      total += punctPrice(j - i, repeated && coreLength > 3, variant);
      i = j;
      continue;
    }

    // Whitespace: up to the last newline of the run; otherwise all but the last space before
    // a non-space (that space leads the next word or punctuation run).
    let lastNewline = -1;
    while (j < n) {
      const kk = classAt(text, j);
      if (kk === NEWLINE) lastNewline = j;
      else if (kk !== SPACE) break;
      j += widthAt(text, j);
    }
    let end = j;
    if (lastNewline >= 0) end = lastNewline + 1;
    else if (j < n && j - i > 1) end = j - 1;
    total += 1 + ((end - i) >> 5);
    i = end;
  }
  return Math.ceil(total);
}

// ---- messages, tools and requests ---------------------------------------------------------

/** Role markers and separators around every message. */
const MESSAGE_OVERHEAD = 4;
/** Wrapper of one tool call or tool result beyond its id, name, arguments or content. */
const TOOL_CALL_OVERHEAD = 6;
const TOOL_RESULT_OVERHEAD = 6;
/** Wrapper of one tool definition beyond its name, description and schema. */
const TOOL_DEFINITION_OVERHEAD = 8;
/** Priming of the assistant's reply. */
const REQUEST_OVERHEAD = 3;
/**
 * Opaque reasoning (encrypted or redacted, no text): base64 holds 3 bytes per 4 characters and
 * the model's own text runs ~4 bytes per token, so ~5 characters per token. Rough on purpose;
 * provider usage corrects it.
 */
const OPAQUE_CHARS_PER_TOKEN = 5;

function countMessage(m: Message): number {
  let tokens = MESSAGE_OVERHEAD + estimateText(m.content);
  if (m.role === 'assistant') {
    for (const call of m.tool_calls ?? []) {
      tokens += TOOL_CALL_OVERHEAD + estimateText(call.id) + estimateText(call.name) + estimateText(call.args);
    }
    for (const part of m.reasoning ?? []) {
      if (part.text) tokens += estimateText(part.text);
      else tokens += Math.ceil((part.encrypted_content ?? part.signature ?? '').length / OPAQUE_CHARS_PER_TOKEN);
    }
  } else if (m.role === 'tool') {
    tokens += TOOL_RESULT_OVERHEAD + estimateText(m.tool_call_id);
  }
  return tokens;
}

function countToolDefinition(def: ToolDefinition): number {
  return TOOL_DEFINITION_OVERHEAD + estimateText(def.name) + estimateText(def.description) + estimateText(JSON.stringify(def.input_schema));
}

/** Cheap change detector, so a message mutated after it was counted is counted again. */
function fingerprint(m: Message): number {
  let fp = m.content.length;
  if (m.role === 'assistant') {
    for (const call of m.tool_calls ?? []) fp = (fp * 31 + call.args.length + call.name.length + 1) | 0;
    for (const part of m.reasoning ?? []) fp = (fp * 31 + part.text.length + (part.encrypted_content?.length ?? 0) + 7) | 0;
  }
  return fp;
}

/** What a request sends, as far as its size goes. */
export interface EstimateInput {
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
}

/**
 * Counts messages, tool definitions and requests with per-object caches: a message or tool
 * definition is counted once, then found by identity, so re-estimating a growing history costs
 * O(new messages). Caches are weak: they never keep a history alive.
 */
export class TokenEstimator {
  /** How much real counting happened (tests and benchmarks read it). */
  readonly stats = { messagesCounted: 0, toolDefinitionsCounted: 0 };
  private readonly messageCache = new WeakMap<Message, { tokens: number; fingerprint: number }>();
  private readonly toolCache = new WeakMap<ToolDefinition, number>();
  private readonly toolSetCache = new WeakMap<readonly ToolDefinition[], { tokens: number; length: number }>();

  /** One message, framing, tool calls, tool-call ids and reasoning included. */
  message(m: Message): number {
    const fp = fingerprint(m);
    const hit = this.messageCache.get(m);
    if (hit && hit.fingerprint === fp) return hit.tokens;
    const tokens = countMessage(m);
    this.stats.messagesCounted++;
    this.messageCache.set(m, { tokens, fingerprint: fp });
    return tokens;
  }

  messages(list: readonly Message[]): number {
    let total = 0;
    for (const m of list) total += this.message(m);
    return total;
  }

  /** Tool definitions as sent (name, description, JSON schema). Cached by array and by definition. */
  tools(defs: readonly ToolDefinition[]): number {
    const hit = this.toolSetCache.get(defs);
    if (hit && hit.length === defs.length) return hit.tokens;
    let tokens = 0;
    for (const def of defs) {
      let t = this.toolCache.get(def);
      if (t === undefined) {
        t = countToolDefinition(def);
        this.stats.toolDefinitionsCounted++;
        this.toolCache.set(def, t);
      }
      tokens += t;
    }
    this.toolSetCache.set(defs, { tokens, length: defs.length });
    return tokens;
  }

  /** The whole request: system message(s), conversation and tool definitions. */
  request(input: EstimateInput): number {
    return REQUEST_OVERHEAD + this.messages(input.messages) + this.tools(input.tools);
  }
}

/** Shared by every caller in the process; its caches are weak. */
export const defaultTokenEstimator = new TokenEstimator();

export function estimateMessage(m: Message): number {
  return defaultTokenEstimator.message(m);
}

export function estimateTools(defs: readonly ToolDefinition[]): number {
  return defaultTokenEstimator.tools(defs);
}

export function estimateRequest(input: EstimateInput): number {
  return defaultTokenEstimator.request(input);
}

// ---- correction by provider-reported usage -------------------------------------------------

interface Observation {
  promptTokens: number;
  count: number;
  /** The message objects the reported prompt covered, once known. */
  covered?: readonly Message[];
  /** Tool definitions' estimate when the prompt was reported, once known. */
  toolsTokens?: number;
}

function sameObjects(covered: readonly Message[], messages: readonly Message[]): boolean {
  for (let i = 0; i < covered.length; i++) if (covered[i] !== messages[i]) return false;
  return true;
}

/**
 * The size of the next request as the loop should see it: the prompt size the provider last
 * reported plus a local estimate of what was appended since, or the full local estimate when no
 * report applies (none yet, history replaced, or the reported messages are no longer the same
 * objects). One meter per running stream; `reset()` after a compaction replaces the history.
 */
export class ContextMeter {
  /** Where the last `estimate` came from. */
  lastSource: 'reported' | 'local' = 'local';
  private observed?: Observation;
  private lastSeen?: EstimateInput;

  constructor(private readonly estimator: TokenEstimator = defaultTokenEstimator) {}

  /**
   * A request whose prompt covered the first `messageCount` messages reported `promptTokens`
   * (input + cache reads + cache writes). Pass the messages when at hand; otherwise those of the
   * last `estimate` call are used, or, before any, the next estimate's first `messageCount`.
   * Reports of zero or less are ignored (a usage event carrying only output tokens).
   */
  observe(promptTokens: number, messageCount: number, messages?: readonly Message[]): void {
    if (!Number.isFinite(promptTokens) || promptTokens <= 0 || !Number.isInteger(messageCount) || messageCount < 0) return;
    const source = messages ?? this.lastSeen?.messages;
    this.observed = {
      promptTokens,
      count: messageCount,
      covered: source && source.length >= messageCount ? source.slice(0, messageCount) : undefined,
      toolsTokens: this.lastSeen ? this.estimator.tools(this.lastSeen.tools) : undefined,
    };
  }

  /** Estimated input tokens of a request sending `messages` (system included) and `tools`. */
  estimate(messages: readonly Message[], tools: readonly ToolDefinition[]): number {
    this.lastSeen = { messages, tools };
    const obs = this.observed;
    if (obs && messages.length >= obs.count) {
      obs.covered ??= messages.slice(0, obs.count);
      if (sameObjects(obs.covered, messages)) {
        const toolsNow = this.estimator.tools(tools);
        obs.toolsTokens ??= toolsNow;
        let total = obs.promptTokens + toolsNow - obs.toolsTokens;
        for (let i = obs.count; i < messages.length; i++) total += this.estimator.message(messages[i]);
        this.lastSource = 'reported';
        return total;
      }
    }
    this.lastSource = 'local';
    return this.estimator.request({ messages, tools });
  }

  /** Forget the last report (after the history was replaced). */
  reset(): void {
    this.observed = undefined;
    this.lastSeen = undefined;
  }
}
