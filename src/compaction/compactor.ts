/**
 * One compaction, for both paths: prune only when that is enough (the automatic path), else
 * prepare (previous summary, prune, verbatim tail), summarise (fork, budgeted document or update),
 * build the one replacement and validate that it shrinks the context. Transactional: nothing is
 * changed here; the caller installs the replacement only when the outcome is `ok`, after making it
 * durable.
 */
import type { LlmError } from '../core/errors.js';
import type { StreamEvent } from '../core/events.js';
import { stripSystem, systemPart, type Message, type SystemMessage, type ToolResultImage, type UserMessage } from '../core/message.js';
import { emptyUsage, type Usage } from '../core/usage.js';
import type { PrunedOutput } from '../transcript/records.js';
import { buildAutoCompactionPrompt, buildCompactionPrompt, type PromptOptions } from './prompts.js';
import { artifactIndex, collectArtifactRefs, stripIndex, type ArtifactRefs } from './artifact-index.js';
import { applyPrunePlan, planPrune } from './prune.js';
import { latestUserImages, latestUserRequest } from './replacement.js';
import { tailMaxBytes, type CompactionSettings } from './settings.js';
import { summarise, type SummaryRoute } from './summarise.js';
import { tailStart } from './tail.js';

export type CompactionMode = 'auto' | 'manual';

const COMPACTED_RE = /^<compacted_context>\n?([\s\S]*?)\n?<\/compacted_context>/;

/** The history's head summary, if it starts with one (marked, or an older unmarked replacement). */
export function summaryHead(messages: readonly Message[]): UserMessage | undefined {
  const first = messages.find((m) => m.role !== 'system');
  return first?.role === 'user' && (first.summary_level || first.content.startsWith('<compacted_context>')) ? first : undefined;
}

/** The summary text of a head summary: inside `<compacted_context>`, without its artifact index. */
export function summaryText(head: UserMessage): string {
  const inner = COMPACTED_RE.exec(head.content);
  return stripIndex(inner ? inner[1] : head.content);
}

export interface PreparedCompaction {
  system: SystemMessage[];
  previousSummary?: string;
  /** Replaced by the summary (pruned form), head summary excluded. */
  summarised: Message[];
  /** Kept verbatim after the summary (pruned form). */
  tail: Message[];
  level: 1 | 2;
  /** Artifacts leaving the history (listed in the index appended to the summary). */
  refs: ArtifactRefs;
  /** The auto path's latest user request, kept verbatim unless the tail holds it. */
  latestRequest?: string;
  /** The images of that request, kept with it on the summary message. */
  latestImages?: ToolResultImage[];
  prompt: PromptOptions;
}

export interface PrepareInput {
  /** The request's messages, system message(s) included. */
  history: readonly Message[];
  mode: CompactionMode;
  settings: CompactionSettings;
  focus?: string;
  countText: (text: string) => number;
  countMessage: (m: Message) => number;
}

/** Pure: split the history into what the summary replaces and what stays. */
export function prepareCompaction(input: PrepareInput): PreparedCompaction {
  const system = systemPart(input.history);
  let rest = stripSystem(input.history);
  if (input.settings.prune) {
    const plan = planPrune(rest, { count: input.countText });
    if (plan) rest = applyPrunePlan(rest, plan.pruned);
  }
  const head = summaryHead(rest);
  const body = head ? rest.slice(1) : rest;
  const cut = tailStart(body, { keepTokens: input.settings.keepRecentTokens, maxBytes: tailMaxBytes(input.settings), count: input.countMessage });
  const summarised = body.slice(0, cut);
  const tail = body.slice(cut);
  const refs = collectArtifactRefs(head ? [head, ...summarised] : summarised);
  const tailHasUser = tail.some((m) => m.role === 'user' && !m.summary_level);
  const prompt: PromptOptions = { focus: input.focus, instructions: input.settings.instructions, update: !!head };
  if (tail.length > 0) {
    const first = tail[0];
    const snippet = first.content.replace(/\s+/g, ' ').trim().slice(0, 60);
    prompt.tailNote = `The newest ${tail.length} ${tail.length === 1 ? 'message' : 'messages'} (from the ${first.role} message that begins "${snippet}") stay verbatim after your summary: summarise what comes before them and do not repeat them.`;
  }
  return {
    system,
    previousSummary: head ? summaryText(head) : undefined,
    summarised,
    tail,
    level: head ? 2 : 1,
    refs,
    latestRequest: input.mode === 'auto' && !tailHasUser ? latestUserRequest(rest) : undefined,
    latestImages: input.mode === 'auto' && !tailHasUser ? latestUserImages(rest) : undefined,
    prompt,
  };
}

/**
 * The one replacement shape: the system message(s) (dropped by AppState), one user message with
 * the summary (marked with its level) and the artifact index, the latest user request verbatim
 * when the auto path needs it, then the verbatim tail.
 */
export function buildReplacement(prepared: PreparedCompaction, summary: string): Message[] {
  const index = artifactIndex(prepared.refs);
  const body = [stripIndex(summary), index].filter((s) => s !== '').join('\n\n');
  let content = `<compacted_context>\n${body}\n</compacted_context>`;
  if (prepared.latestRequest !== undefined) content += `\n\n<last_user_message>\n${prepared.latestRequest}\n</last_user_message>`;
  const summaryMessage: UserMessage = { role: 'user', content, summary_level: prepared.level };
  if (prepared.latestRequest !== undefined && prepared.latestImages) summaryMessage.images = prepared.latestImages;
  return [...prepared.system.map((m) => ({ ...m })), summaryMessage, ...prepared.tail.map((m) => structuredClone(m))];
}

export type CompactionOutcome =
  | {
      ok: true;
      replacement: Message[];
      /** '' when the compaction only pruned (`via` 'prune', `pruned` set). */
      summary: string;
      usage: Usage;
      requests: number;
      via: 'fork' | 'document' | 'prune';
      /** The tool outputs a prune-only compaction replaced by their handles. */
      pruned?: PrunedOutput[];
      tokensBefore: number;
      tokensAfter: number;
    }
  | { ok: false; reason: string; cancelled: boolean; usage: Usage; requests: number; error?: LlmError };

export interface CompactInput extends PrepareInput {
  /** Estimated input tokens of the request the history would make now. */
  tokensBefore: number;
  /** Estimated input tokens of a request sending `messages` (with the same tools). */
  estimate: (messages: readonly Message[]) => number;
  /** The routes to the summariser; `forkEstimate` is the estimate of the fork, prompt included. */
  route: (forkEstimate: number) => SummaryRoute;
  visible: boolean;
  signal: AbortSignal;
  /**
   * The automatic path's threshold: when pruning alone (`settings.prune`) brings the estimate
   * under it, the outcome is the pruned history and no summary request is made. Absent (manual
   * compaction): always summarise.
   */
  pruneOnlyBelow?: number;
}

/**
 * The prune-only compaction: old tool outputs become handles, nothing is summarised. Undefined
 * when pruning is off, finds nothing worth it, or leaves the estimate at or over `below`.
 */
function pruneOnly(input: CompactInput, below: number): CompactionOutcome | undefined {
  if (!input.settings.prune) return undefined;
  const rest = stripSystem(input.history);
  const plan = planPrune(rest, { count: input.countText });
  if (!plan) return undefined;
  const replacement = [...systemPart(input.history), ...applyPrunePlan(rest, plan.pruned)];
  const after = input.estimate(replacement);
  if (after >= below) return undefined;
  return { ok: true, replacement, summary: '', usage: emptyUsage(), requests: 0, via: 'prune', pruned: plan.pruned, tokensBefore: input.tokensBefore, tokensAfter: after };
}

/** Prune only when that is enough, else prepare, summarise, build and validate one compaction. Never throws. */
export async function* compact(input: CompactInput): AsyncGenerator<StreamEvent, CompactionOutcome> {
  const pruned = input.pruneOnlyBelow === undefined ? undefined : pruneOnly(input, input.pruneOnlyBelow);
  if (pruned) return pruned;
  const prepared = prepareCompaction(input);
  const build = input.mode === 'auto' ? buildAutoCompactionPrompt : buildCompactionPrompt;
  const forkPrompt = build({ ...prepared.prompt, source: 'history' });
  const documentPrompt = build({ ...prepared.prompt, source: 'document' });
  const result = yield* summarise({
    forkPrompt,
    documentPrompt,
    messages: prepared.summarised,
    previousSummary: prepared.previousSummary,
    route: input.route(input.tokensBefore + input.countText(forkPrompt) + 8),
    visible: input.visible,
    signal: input.signal,
    count: input.countText,
  });
  if (!result.ok) return result;
  const failed = (reason: string): CompactionOutcome => ({ ok: false, reason, cancelled: false, usage: result.usage, requests: result.requests });
  const replacement = buildReplacement(prepared, result.summary);
  const after = input.estimate(replacement);
  // Size rules guard the automatic path against loops; a manual compaction is the user's call.
  if (input.mode === 'auto') {
    const replaced = input.countText(prepared.previousSummary ?? '') + prepared.summarised.reduce((sum, m) => sum + input.countMessage(m), 0);
    const summaryTokens = input.countText(result.summary);
    if (summaryTokens >= replaced) return failed(`the summary (${summaryTokens} tokens) is longer than the history it replaces (${replaced} tokens)`);
    if (after >= input.tokensBefore) return failed(`the summary did not make the context smaller (${input.tokensBefore} → ${after} tokens)`);
  }
  return { ok: true, replacement, summary: result.summary, usage: result.usage, requests: result.requests, via: result.via, tokensBefore: input.tokensBefore, tokensAfter: after };
}
