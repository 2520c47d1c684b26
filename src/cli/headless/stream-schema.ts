/**
 * The stream-json event schema as zod, for tests and for anyone validating Keen's output. Kept
 * beside stream-events.ts; not loaded by a run.
 */
import * as z from 'zod';

const usage = {
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cache_read: z.number().int().nonnegative(),
  cache_write: z.number().int().nonnegative(),
};

export const streamEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('system'),
    subtype: z.literal('init'),
    session_id: z.string(),
    cwd: z.string(),
    provider: z.string(),
    model: z.string(),
    tools: z.array(z.string()),
    keen_version: z.string(),
  }),
  z.strictObject({ type: z.literal('text_delta'), text: z.string() }),
  z.strictObject({ type: z.literal('assistant'), text: z.string(), tool_calls: z.array(z.strictObject({ id: z.string(), name: z.string(), input: z.unknown() })) }),
  z.strictObject({ type: z.literal('tool_call'), id: z.string(), name: z.string(), input: z.unknown() }),
  z.strictObject({ type: z.literal('tool_input_changed'), id: z.string(), name: z.string(), input: z.unknown() }),
  z.strictObject({ type: z.literal('tool_result'), id: z.string(), name: z.string(), is_error: z.boolean(), content: z.string() }),
  z.strictObject({ type: z.literal('usage'), ...usage }),
  z.strictObject({
    type: z.literal('retry_wait'),
    host: z.string(),
    status: z.number().int().nonnegative(),
    wait_ms: z.number().int().nonnegative(),
    retry: z.number().int().positive(),
    of: z.number().int().nonnegative(),
  }),
  z.strictObject({
    type: z.literal('compaction'),
    subtype: z.enum(['started', 'applied', 'failed', 'cancelled']),
    tokens_before: z.number().int().optional(),
    tokens_after: z.number().int().optional(),
    reason: z.string().optional(),
  }),
  z.strictObject({
    type: z.literal('result'),
    subtype: z.enum(['success', 'error_max_turns', 'error_refusal', 'error_during_execution', 'error_cancelled', 'error_startup']),
    is_error: z.boolean(),
    result: z.string(),
    error: z.strictObject({ kind: z.string(), message: z.string() }).nullable(),
    session_id: z.string().nullable(),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    mode: z.enum(['plan', 'build']).nullable(),
    stop_reason: z.string().nullable(),
    num_turns: z.number().int().nonnegative(),
    duration_ms: z.number().int().nonnegative(),
    compactions: z.number().int().nonnegative(),
    usage: z.strictObject(usage),
    total_cost_usd: z.number().nonnegative().nullable(),
    cost_without_cache_usd: z.number().nonnegative().nullable(),
    cache_savings_usd: z.number().nullable(),
    cost_is_estimate: z.literal(true),
  }),
]);

export type StreamEventJson = z.infer<typeof streamEventSchema>;
