/**
 * Local token estimates for the context budget: cheap, close to a real BPE tokenizer, and cached
 * per message so one tool-loop iteration costs O(new messages).
 *
 * Counting text: one pass that mirrors o200k's pre-tokenizer split (words with an optional
 * one-character prefix and camelCase boundaries, digit groups of up to three, punctuation runs,
 * whitespace runs) and prices each piece from tables fitted against `gpt-tokenizer`'s o200k
 * encoding. On the held-out mixed corpus it lands within ±6% per kind of text and ~1% overall
 * (random base64 is the worst case, ~12% low); see test/tokens/token-estimator.test.ts and
 * bench/estimator.ts. Why not the tokenizer itself: it is slow to import and several times
 * slower (figures in docs/performance.md), and other providers' tokenizers differ from o200k anyway. {@link ContextMeter} corrects
 * the estimate with the usage each provider reports.
 */
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/provider.js';
import { estimateText } from './text-tokens.js';

export { estimateText };

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
/**
 * One image in a tool result or a user message, whatever its size: about what Anthropic charges for the largest
 * image it keeps unscaled (~1568 px on the long edge). Its base64 is never counted as text.
 * Images a request leaves out (image-budget.ts) are still counted: the estimate is per message
 * and provider-neutral, so it errs high, and the provider's reported usage replaces it.
 */
export const IMAGE_TOKENS = 1600;

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
    tokens += TOOL_RESULT_OVERHEAD + estimateText(m.tool_call_id) + (m.images?.length ?? 0) * IMAGE_TOKENS;
  } else if (m.role === 'user') {
    tokens += (m.images?.length ?? 0) * IMAGE_TOKENS;
  }
  return tokens;
}

/** Definitions counted before this process ran (the bundle's built-in tools, tools/definition-table.ts). */
const precounted = new WeakMap<ToolDefinition, number>();

/**
 * Record `tokens` as the count of `def`, counted by this same estimator at build time: every
 * estimator then finds it instead of counting it again. For definitions that are never mutated.
 */
export function rememberToolDefinitionTokens(def: ToolDefinition, tokens: number): void {
  precounted.set(def, tokens);
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
  } else if (m.role === 'tool' || m.role === 'user') {
    fp = (fp * 31 + (m.images?.length ?? 0)) | 0;
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
      let t = this.toolCache.get(def) ?? precounted.get(def);
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
