/**
 * `--output-format stream-json`: one JSON object per line, written as it happens. The event
 * shapes are a stable contract (docs/cli.md; validated by src/cli/headless/stream-schema.ts in
 * the tests): add fields, never rename or remove them.
 */
import type { LiveSession } from '../../agent/open-session.js';
import type { ControllerEvent } from '../../agent/session-controller.js';
import { VERSION } from '../../version.js';

export type StreamJsonEvent =
  | { type: 'system'; subtype: 'init'; session_id: string; cwd: string; provider: string; model: string; tools: string[]; keen_version: string }
  | { type: 'text_delta'; text: string }
  | { type: 'assistant'; text: string; tool_calls: { id: string; name: string; input: unknown }[] }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  /** A PreToolUse hook changed a started call's input: `input` is what runs. */
  | { type: 'tool_input_changed'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; id: string; name: string; is_error: boolean; content: string }
  | { type: 'usage'; input: number; output: number; cache_read: number; cache_write: number }
  | { type: 'retry_wait'; host: string; status: number; wait_ms: number; retry: number; of: number }
  | { type: 'compaction'; subtype: 'started' | 'applied' | 'failed' | 'cancelled'; tokens_before?: number; tokens_after?: number; reason?: string };

export function initEvent(session: LiveSession): StreamJsonEvent {
  return {
    type: 'system',
    subtype: 'init',
    session_id: session.sessionId,
    cwd: process.cwd(),
    provider: session.provider,
    model: session.model,
    tools: session.controller.appState.toolDefinitions.map((t) => t.name),
    keen_version: VERSION,
  };
}

/** Tool arguments as the model wrote them: parsed when they are JSON, else the raw text. */
function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** The stream-json event of a controller event, or undefined for events that are not shown. */
export function toStreamEvent(ev: ControllerEvent): StreamJsonEvent | undefined {
  switch (ev.type) {
    case 'text_delta':
      return { type: 'text_delta', text: ev.text };
    case 'message':
      if (ev.message.role !== 'assistant') return undefined;
      return { type: 'assistant', text: ev.message.content, tool_calls: (ev.message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, input: parseArgs(c.args) })) };
    case 'tool_call_started':
      return { type: 'tool_call', id: ev.call.id, name: ev.call.name, input: parseArgs(ev.call.args) };
    case 'tool_call_input_changed':
      return { type: 'tool_input_changed', id: ev.call.id, name: ev.call.name, input: parseArgs(ev.call.args) };
    case 'tool_call_finished':
      return { type: 'tool_result', id: ev.call.id, name: ev.call.name, is_error: ev.result.is_error === true, content: ev.result.content };
    case 'usage':
      return { type: 'usage', ...ev.usage };
    case 'retry_wait':
      return { type: 'retry_wait', host: ev.wait.host, status: ev.wait.status, wait_ms: Math.round(ev.wait.waitMs), retry: ev.wait.retry, of: ev.wait.of };
    case 'auto_compaction_started':
      return { type: 'compaction', subtype: 'started' };
    case 'auto_compaction_applied':
      return { type: 'compaction', subtype: 'applied', tokens_before: ev.tokensBefore, tokens_after: ev.tokensAfter };
    case 'auto_compaction_failed':
      return { type: 'compaction', subtype: 'failed', reason: ev.reason };
    case 'auto_compaction_cancelled':
      return { type: 'compaction', subtype: 'cancelled' };
    default:
      return undefined;
  }
}
