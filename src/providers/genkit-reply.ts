/**
 * Decodes Genkit's final response into one reply: the lossless message, usage and the stop
 * reason. A reply Gemini blocked (finishReason SAFETY, PROHIBITED_CONTENT, BLOCKLIST, SPII,
 * RECITATION, ...) reaches Keen as Genkit's GenerationBlockedError; it is a refusal, not a failure.
 */
import type { GenerateResponseData, Part } from 'genkit';
import type { WireTurn } from '../core/conversation.js';
import type { Usage } from '../core/usage.js';
import { assistantFromReply } from './genkit-messages.js';
import { mapStopReason } from './kit/stop-reason.js';
import { normaliseUsage } from './kit/usage.js';

/** What this decoder reads of a Genkit response (a GenerateResponse, or the one a blocked error carries). */
interface GenkitReply {
  message?: { content?: readonly Part[] } | null;
  finishReason?: GenerateResponseData['finishReason'];
  finishMessage?: string;
  usage?: GenerateResponseData['usage'];
  /** The Gemini response itself, as the Google AI plugin passes it on. */
  custom?: unknown;
}

interface GeminiCandidate {
  finishReason?: string;
  safetyRatings?: { category?: string; blocked?: boolean }[];
}

/** Gemini counts cached tokens inside promptTokenCount and thoughts outside candidates. */
function usageOf(res: GenkitReply): Usage | undefined {
  const u = res.usage;
  if (!u || (u.inputTokens === undefined && u.outputTokens === undefined)) return undefined;
  return normaliseUsage({ prompt: u.inputTokens, output: u.outputTokens, extraOutput: u.thoughtsTokens, cacheRead: u.cachedContentTokens, promptIncludesCache: true });
}

/** Why Gemini blocked the answer: its finish message, else its finish reason and the blocked categories. */
function blockExplanation(res: GenkitReply): string | undefined {
  if (res.finishMessage?.trim()) return res.finishMessage.trim();
  const candidate = ((res.custom as { candidates?: GeminiCandidate[] } | undefined)?.candidates ?? [])[0];
  if (!candidate?.finishReason) return undefined;
  const blocked = (candidate.safetyRatings ?? []).filter((r) => r.blocked && r.category).map((r) => r.category);
  return `Gemini finish reason ${candidate.finishReason}${blocked.length > 0 ? ` (${blocked.join(', ')})` : ''}`;
}

/** The reply of a finished Genkit response. */
export function replyOf(res: GenkitReply): WireTurn {
  const message = assistantFromReply(res.message?.content ?? []);
  const usage = usageOf(res);
  const native = res.finishReason === 'stop' || res.finishReason === 'length' || res.finishReason === 'blocked' ? res.finishReason : undefined;
  const stopReason = mapStopReason(native, (message.tool_calls ?? []).length > 0);
  const explanation = stopReason === 'refusal' ? blockExplanation(res) : undefined;
  return { message, stopReason, ...(usage ? { usage } : {}), ...(explanation ? { explanation } : {}) };
}

/**
 * The refused reply a GenerationBlockedError carries, or undefined for any other error. A blocked
 * prompt is a reply without candidates (Gemini sends only `promptFeedback`); the plugin raises it
 * as "No valid candidates returned." and drops the block reason.
 */
export function blockedReply(err: unknown): WireTurn | undefined {
  const e = err as { detail?: { response?: GenkitReply }; status?: string; originalMessage?: string } | null | undefined;
  const res = e?.detail?.response;
  if (res?.finishReason === 'blocked') return replyOf(res);
  if (e?.status === 'FAILED_PRECONDITION' && e.originalMessage === NO_CANDIDATES) {
    return { message: assistantFromReply([]), stopReason: 'refusal', explanation: 'Gemini blocked the prompt' };
  }
  return undefined;
}

/** The Google AI plugin's message for a response without candidates. */
const NO_CANDIDATES = 'No valid candidates returned.';
