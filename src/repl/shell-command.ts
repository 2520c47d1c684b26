/**
 * `!command` in the REPL: the command runs through the session's own tool registry — the bash
 * tool, its sandbox (plan mode's read-only one included) and the permission gate — and is shown
 * as a bash card; its output becomes a user message, durable before it joins the history, so the
 * model sees it on the next turn. Typing the command is the user's approval of the question the
 * default mode would ask about it; deny rules and ask rules still apply.
 */
import type { LiveSession } from '../agent/open-session.js';
import type { ControllerEvent } from '../agent/session-controller.js';
import { llmError } from '../core/errors.js';
import { type ToolCall, userMessage } from '../core/message.js';
import { errorText } from '../errors.js';
import { CANCELLED } from '../tools/types.js';
import { decide, type ExplainingGate, type Policy } from '../tools/permissions/index.js';
import type { PermissionGate } from '../tools/types.js';
import { shellMessage } from './shell-message.js';

let counter = 0;

/** `gate` with the user's own approval: a call only the default question stops runs; deny and ask rules decide as before. */
export function typedCommandGate(gate: ExplainingGate & { readonly policy: Policy }): PermissionGate & ExplainingGate {
  return {
    policy: gate.policy,
    additionalDirs: gate.additionalDirs,
    async check(request) {
      const d = decide(request, gate.policy);
      if (d.verdict === 'ask' && d.reason.kind === 'needs-approval') return 'allow';
      return gate.check(request);
    },
    denialMessage: (request) => gate.denialMessage?.(request) ?? `Permission denied: ${request.tool}`,
  };
}

/** Runs `command` as the session's bash tool would and records its output as a user message. */
export async function* shellTurn(
  session: LiveSession,
  command: string,
  ctx: { cwd: string; gate: ExplainingGate & { readonly policy: Policy }; signal: AbortSignal },
): AsyncGenerator<ControllerEvent> {
  const call: ToolCall = { id: `shell-${Date.now()}-${counter++}`, name: 'bash', args: JSON.stringify({ command }) };
  yield { type: 'tool_call_started', call };
  const result = await session.userCalls.execute(call, { cwd: ctx.cwd, signal: ctx.signal, permissions: typedCommandGate(ctx.gate) });
  yield { type: 'tool_call_finished', call, result };
  if (ctx.signal.aborted || result.content === CANCELLED) {
    yield { type: 'error', error: llmError('cancelled', 'cancelled') };
    return;
  }
  const message = userMessage(shellMessage(command, result.content));
  try {
    await session.store.append({ kind: 'user_message', message });
  } catch (err) {
    yield { type: 'error', error: llmError('other', `could not save the command's output: ${errorText(err)}; the model will not see it`) };
    return;
  }
  session.controller.appState.appendMessage(message);
}
