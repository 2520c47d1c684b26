import type { ToolRegistry } from '../../tools/types.js';
import type { StreamEvent } from '../core/events.js';
import { cloneMessages, type Message } from '../core/message.js';
import type { ProviderConversation, ToolDefinition } from '../core/provider.js';
import type { StreamOptions } from '../core/stream-options.js';
import { addUsage, emptyUsage, type Usage } from '../core/usage.js';
import { buildAutoCompactionPrompt } from '../prompts/compaction-prompts.js';
import { buildAutoReplacement } from './replacement.js';

/** Per-stream bookkeeping that keeps failed attempts bounded. */
export interface CompactionAttempts {
  failures: number;
  /** Tool turns completed when the last attempt ran; a new attempt needs a newer tool turn. */
  toolTurnsAtLastTry: number;
  /** After a failure, the estimate must reach this before trying again. */
  minEstimate: number;
}

export interface AutoCompactInput {
  /** The parent's native conversation. Never mutated here: the child works on a fork. */
  conversation: ProviderConversation;
  /** The parent's generic history, system message(s) included. Never mutated here. */
  history: readonly Message[];
  tools: readonly ToolDefinition[];
  registry: ToolRegistry;
  options: StreamOptions;
  /** The parent's signal: aborting it aborts the child too (never the reverse). */
  signal: AbortSignal;
  estimateBefore: number;
  estimate: (messages: readonly Message[]) => number;
  runChild: (child: ProviderConversation, childHistory: Message[], options: StreamOptions) => AsyncIterable<StreamEvent>;
}

/**
 * The private nested compaction request: the parent request byte for byte (same system, tools and
 * messages) plus one final user message with the automatic compaction prompt, run one-shot with
 * tool calls refused and no nested compaction. Nothing from the child reaches the parent stream
 * but the lifecycle events.
 *
 * Transactional: returns the replacement (system + compacted user message) only when a non-empty
 * summary made the context smaller; otherwise returns undefined and the caller changes nothing.
 */
export async function* autoCompact(input: AutoCompactInput): AsyncGenerator<StreamEvent, Message[] | undefined> {
  const child = input.conversation.fork();
  const prompt = buildAutoCompactionPrompt();
  child.appendUserText(prompt);
  const childHistory = [...cloneMessages(input.history), { role: 'user' as const, content: prompt }];

  const controller = new AbortController();
  const followParent = () => controller.abort();
  if (input.signal.aborted) controller.abort();
  input.signal.addEventListener('abort', followParent, { once: true });
  yield { type: 'auto_compaction_started', cancel: () => controller.abort() };

  let text = '';
  let usage: Usage = emptyUsage();
  let failure: string | undefined;
  try {
    for await (const ev of input.runChild(child, childHistory, {
      sessionId: input.options.sessionId,
      oneShot: true,
      disableAutoCompaction: true,
      disableToolCalls: true,
      signal: controller.signal,
    })) {
      if (ev.type === 'text_delta') text += ev.text;
      else if (ev.type === 'tool_call_started') text = ''; // keep only text after the last tool activity
      else if (ev.type === 'usage') usage = addUsage(usage, ev.usage);
      else if (ev.type === 'error') failure = ev.error.kind === 'cancelled' ? 'cancelled' : ev.error.message;
      else if (ev.type === 'done' && ev.stopReason === 'max_tokens') failure = 'the summary was cut off at the output limit';
      else if (ev.type === 'done' && ev.stopReason === 'max_turns') failure = 'the model kept calling tools instead of summarising';
    }
  } finally {
    input.signal.removeEventListener('abort', followParent);
  }

  if (controller.signal.aborted || failure === 'cancelled') {
    yield { type: 'auto_compaction_cancelled', usage };
    return undefined;
  }
  if (failure) {
    yield { type: 'auto_compaction_failed', reason: failure, usage };
    return undefined;
  }
  const summary = text.trim();
  if (!summary) {
    yield { type: 'auto_compaction_failed', reason: 'the summary was empty', usage };
    return undefined;
  }
  const replacement = buildAutoReplacement(input.history, summary);
  const after = input.estimate(replacement);
  if (after >= input.estimateBefore) {
    yield { type: 'auto_compaction_failed', reason: `the summary did not make the context smaller (${input.estimateBefore} → ${after} tokens)`, usage };
    return undefined;
  }
  yield { type: 'auto_compaction_applied', replacement: cloneMessages(replacement), summary, usage, tokensBefore: input.estimateBefore, tokensAfter: after };
  return replacement;
}
