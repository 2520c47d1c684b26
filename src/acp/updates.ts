/**
 * How Keen's stream looks to an ACP client: pure mappings from controller events and stored
 * turns to `session/update` payloads. The ids are the model's tool-call ids, so a permission
 * request and the call's updates name the same card.
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { ToolCall, ToolMessage } from '../core/message.js';
import { INPUT_CHANGED_MARK, toolSummary } from '../tools/summary.js';
import type { ToolActivity } from '../transcript/records.js';

const KINDS: Record<string, acp.ToolKind> = {
  read_file: 'read',
  list_dir: 'read',
  recall: 'read',
  write_file: 'edit',
  edit_file: 'edit',
  remember: 'edit',
  bash: 'execute',
  grep: 'search',
  glob: 'search',
  web_fetch: 'fetch',
  task: 'think',
  skill: 'other',
};

/** The ACP kind of a tool (an editor picks the card's icon by it). */
export function toolKind(name: string): acp.ToolKind {
  return KINDS[name] ?? 'other';
}

function parseArgs(call: ToolCall): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(call.args || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The files a call touches, absolute, for the editor to follow. */
export function toolLocations(call: ToolCall, cwd: string): acp.ToolCallLocation[] {
  const p = parseArgs(call).path;
  if (typeof p !== 'string' || !p) return [];
  return [{ path: p.startsWith('/') ? p : `${cwd.replace(/\/$/, '')}/${p}` }];
}

/** A proposed edit as the ACP diff of the whole file or the replaced text. */
function editDiff(call: ToolCall, cwd: string): acp.ToolCallContent[] {
  const args = parseArgs(call);
  const [loc] = toolLocations(call, cwd);
  if (!loc) return [];
  if (call.name === 'write_file' && typeof args.content === 'string') return [{ type: 'diff', path: loc.path, oldText: null, newText: args.content }];
  if (call.name === 'edit_file' && typeof args.old_string === 'string' && typeof args.new_string === 'string') {
    return [{ type: 'diff', path: loc.path, oldText: args.old_string, newText: args.new_string }];
  }
  return [];
}

/** The `tool_call` update announcing a call. */
export function toolCallStarted(call: ToolCall, cwd: string): acp.SessionUpdate {
  return {
    sessionUpdate: 'tool_call',
    toolCallId: call.id,
    title: toolSummary(call),
    kind: toolKind(call.name),
    status: 'in_progress',
    locations: toolLocations(call, cwd),
    content: editDiff(call, cwd),
    rawInput: parseArgs(call),
  };
}

/**
 * The `tool_call_update` redrawing a started call's card with the input a PreToolUse hook gave it
 * (what runs): its title says so; its files, diff and rawInput are the new input's.
 */
export function toolCallInputChanged(call: ToolCall, cwd: string): acp.SessionUpdate {
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: call.id,
    title: `${toolSummary(call)} ${INPUT_CHANGED_MARK}`,
    locations: toolLocations(call, cwd),
    content: editDiff(call, cwd),
    rawInput: parseArgs(call),
  };
}

/**
 * The `toolCall` of a `session/request_permission`: the call the question is about, as it will
 * run (`call`, a hook's input when it changed one), with its files, diff and rawInput.
 */
export function permissionToolCall(call: ToolCall | undefined, fallbackId: string, title: string, tool: string, cwd: string): acp.ToolCallUpdate {
  const base: acp.ToolCallUpdate = { toolCallId: call?.id ?? fallbackId, title, kind: toolKind(tool), status: 'pending' };
  return call ? { ...base, locations: toolLocations(call, cwd), content: editDiff(call, cwd), rawInput: parseArgs(call) } : base;
}

/** The `tool_call_update` ending a call (as it ran) with its result text (after the terminal it ran in, if any). */
export function toolCallFinished(call: ToolCall, result: ToolMessage, cwd: string, terminalId?: string): acp.SessionUpdate {
  const terminal: acp.ToolCallContent[] = terminalId ? [{ type: 'terminal', terminalId }] : [];
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: call.id,
    status: result.is_error ? 'failed' : 'completed',
    content: [...terminal, ...editDiff(call, cwd), { type: 'content', content: { type: 'text', text: result.content } }],
  };
}

/** The `tool_call_update` embedding the editor terminal a call runs in. */
export function toolCallTerminal(callId: string, terminalId: string): acp.SessionUpdate {
  return { sessionUpdate: 'tool_call_update', toolCallId: callId, content: [{ type: 'terminal', terminalId }] };
}

/**
 * A stored tool card (session/load): what the transcript kept of it, and from the call as it ran
 * (the input a hook gave it, else the model's call when the turn's messages hold it) the files it
 * touched and an edit's diff.
 */
export function storedToolCall(tool: ToolActivity, made: ToolCall | undefined, cwd: string): acp.SessionUpdate {
  const call = tool.input !== undefined ? { id: tool.id, name: tool.name, args: tool.input } : made;
  return {
    sessionUpdate: 'tool_call',
    toolCallId: tool.id,
    title: tool.summary,
    kind: toolKind(tool.name),
    status: tool.is_error ? 'failed' : 'completed',
    ...(call ? { locations: toolLocations(call, cwd), content: editDiff(call, cwd), rawInput: parseArgs(call) } : {}),
  };
}

/** A text chunk of the given role. */
export function textChunk(kind: 'user_message_chunk' | 'agent_message_chunk' | 'agent_thought_chunk', text: string): acp.SessionUpdate {
  return { sessionUpdate: kind, content: { type: 'text', text } };
}
