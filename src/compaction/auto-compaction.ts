/**
 * Automatic compaction inside the tool loop: the policy decides, then the one compaction
 * (src/compaction/compactor.ts: prune only when that is enough, else summarise) runs on a private
 * child over the one summary route (summary-route.ts). The loop makes one call before every model request:
 * {@link AutoCompaction.maybeCompact}.
 */
import type { StreamEvent } from '../core/events.js';
import { cloneMessages, userMessage, type Message } from '../core/message.js';
import type { ChatRequest, ProviderConversation, ToolDefinition } from '../core/provider.js';
import type { StreamOptions } from '../core/stream-options.js';
import { emptyUsage } from '../core/usage.js';
import { estimateMessage, estimateText } from '../tokens/token-estimator.js';
import { compact } from './compactor.js';
import { attemptFailed, attemptSucceeded, decideAutoCompaction, newAttemptState, streamStarted, type AttemptState } from './policy.js';
import { NO_EXTRAS, type CompactionSettings } from './settings.js';
import { summaryOptions, summaryRoute, type ParentSummary, type Summariser } from './summary-route.js';

/** The compaction part of the loop's environment. */
export interface LoopCompaction {
  settings: CompactionSettings;
  /** Absent: the parent model summarises (fork when it fits, document otherwise). */
  summariser?: Summariser;
  /**
   * Asked before every automatic compaction (the session's `PreCompact` hooks, trigger `auto`):
   * a reason skips this attempt, counted as a failed one; undefined lets it run.
   */
  beforeCompact?: (signal: AbortSignal) => Promise<string | undefined>;
}

/** Where one conversation keeps its back-off between streams (one per user turn). */
export interface AttemptMemory {
  state: AttemptState;
}

export function newAttemptMemory(): AttemptMemory {
  return { state: newAttemptState() };
}

export interface AutoCompactionDeps {
  /** The conversation's back-off, kept across its streams; absent: this stream's own. */
  attempts?: AttemptMemory;
  budget: { window: number; inputBudget: number; threshold: number; autoEnabled: boolean };
  /** Output the parent's thinking budget takes in every request, the fork's included (policy.ts). */
  thinkingReserve?: number;
  compaction?: LoopCompaction;
  tools: readonly ToolDefinition[];
  options: StreamOptions;
  /** The parent's signal: aborting it aborts the child too (never the reverse). */
  signal: AbortSignal;
  /** The parent's model and output limit, for a document request to the parent model. */
  model: string;
  maxOutputTokens: number;
  /** A fresh estimate of a request sending `messages` with the parent's tools. */
  estimate: (messages: readonly Message[]) => number;
  /** Runs the child loop on a fork of the parent conversation. */
  runFork: (child: ProviderConversation, childHistory: Message[], options: StreamOptions) => AsyncIterable<StreamEvent>;
  /** Runs a fresh conversation for `request` on the parent's adapter. */
  runFresh: (request: ChatRequest, options: StreamOptions) => AsyncIterable<StreamEvent>;
}

export interface AutoCompaction {
  /**
   * Before every request: maybe compact. Returns the replacement (system included) to install, or
   * undefined to send the request unchanged. Lifecycle events are yielded; nothing of the child.
   */
  maybeCompact(at: { conversation: ProviderConversation; history: readonly Message[]; estimate: number }): AsyncGenerator<StreamEvent, Message[] | undefined>;
}

export function createAutoCompaction(deps: AutoCompactionDeps): AutoCompaction {
  const attempts = deps.attempts ?? newAttemptMemory();
  attempts.state = streamStarted(attempts.state);
  const settings = deps.compaction?.settings ?? NO_EXTRAS;
  const summariser = deps.compaction?.summariser;
  // The parent model as summariser: the fork of the live conversation, or a fresh request on its adapter.
  const parent = (conversation: ProviderConversation, history: readonly Message[]): ParentSummary => ({
    // The fork carries the parent's thinking, so its budget is room the summary cannot use.
    window: deps.budget.window - (deps.thinkingReserve ?? 0),
    inputBudget: deps.budget.inputBudget,
    model: deps.model,
    maxOutputTokens: deps.maxOutputTokens,
    fork: (prompt, signal) => {
      const child = conversation.fork();
      child.appendUserText(prompt);
      return deps.runFork(child, [...cloneMessages(history), userMessage(prompt)], summaryOptions(deps.options.sessionId, signal));
    },
    fresh: deps.runFresh,
  });

  return {
    async *maybeCompact({ conversation, history, estimate }) {
      const decision = decideAutoCompaction({
        state: attempts.state,
        oneShot: !!deps.options.oneShot,
        disableAutoCompaction: !!deps.options.disableAutoCompaction,
        autoEnabled: deps.budget.autoEnabled,
        pendingState: conversation.hasPendingState(),
        messages: history.length,
        estimate,
        threshold: deps.budget.threshold,
      });
      if (!decision.run) return undefined;

      const controller = new AbortController();
      const followParent = () => controller.abort();
      if (deps.signal.aborted) controller.abort();
      deps.signal.addEventListener('abort', followParent, { once: true });
      yield { type: 'auto_compaction_started', cancel: () => controller.abort() };
      try {
        const blocked = deps.compaction?.beforeCompact && !controller.signal.aborted ? await deps.compaction.beforeCompact(controller.signal) : undefined;
        if (blocked !== undefined && !controller.signal.aborted) {
          attempts.state = attemptFailed(attempts.state, estimate, deps.budget.inputBudget, history.length);
          yield { type: 'auto_compaction_failed', reason: `blocked by a PreCompact hook: ${blocked}`, usage: emptyUsage() };
          return undefined;
        }
        const outcome = yield* compact({
          history,
          mode: 'auto',
          settings,
          countText: estimateText,
          countMessage: estimateMessage,
          tokensBefore: estimate,
          estimate: deps.estimate,
          route: summaryRoute(parent(conversation, history), summariser, deps.options.sessionId),
          pruneOnlyBelow: deps.budget.threshold,
          visible: false,
          signal: controller.signal,
        });
        if (!outcome.ok) {
          attempts.state = attemptFailed(attempts.state, estimate, deps.budget.inputBudget, history.length);
          if (outcome.cancelled || controller.signal.aborted) yield { type: 'auto_compaction_cancelled', usage: outcome.usage };
          else yield { type: 'auto_compaction_failed', reason: outcome.reason, usage: outcome.usage };
          return undefined;
        }
        attempts.state = attemptSucceeded(attempts.state);
        yield {
          type: 'auto_compaction_applied',
          replacement: cloneMessages(outcome.replacement),
          summary: outcome.summary,
          usage: outcome.usage,
          tokensBefore: estimate,
          tokensAfter: outcome.tokensAfter,
          ...(outcome.pruned ? { pruned: outcome.pruned } : {}),
        };
        return outcome.replacement;
      } finally {
        deps.signal.removeEventListener('abort', followParent);
      }
    },
  };
}
