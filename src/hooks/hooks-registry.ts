import { isDeepStrictEqual } from 'node:util';
import type { ToolCall, ToolMessage } from '../core/message.js';
import { redactFormats } from '../security/secret-formats.js';
import type { ExplainingGate } from '../tools/permissions/gates.js';
import { INPUT_CHANGED_MARK } from '../tools/summary.js';
import { CANCELLED, type PermissionGate, type PermissionRequest, type ToolRegistry } from '../tools/types.js';
import type { SessionHooks } from './session-hooks.js';

/** The tool's arguments as the hook sees them (`tool_input`): the parsed JSON, or the raw text. */
function toolInput(call: ToolCall): unknown {
  if (call.args.trim() === '') return {};
  try {
    return JSON.parse(call.args);
  } catch {
    return call.args;
  }
}

/** How much of a hook's input the note on the result quotes. */
const QUOTED_INPUT_CHARS = 300;

/**
 * The first line of the result of a call that ran with a hook's input: that input, as JSON, cut.
 * Known credential formats are redacted before the cut (half a token is no longer recognised),
 * and the cut never splits a surrogate pair (a lone surrogate makes the API refuse every later
 * request of the session).
 */
export function changedInputNote(input: Record<string, unknown>): string {
  const json = redactFormats(JSON.stringify(input));
  if (json.length <= QUOTED_INPUT_CHARS) return `Input changed by a PreToolUse hook; ran with: ${json}`;
  let end = QUOTED_INPUT_CHARS - 1;
  const last = json.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `Input changed by a PreToolUse hook; ran with: ${json.slice(0, end)}…`;
}

/**
 * `gate` told of a PreToolUse hook's `allow` or `ask` (src/tools/permissions/decide.ts weighs it
 * against the rules) and, when the hook changed the input, of the call as it will run (`changed`:
 * the question is about it, and says so); its refusal is worded for the request it was actually
 * asked about.
 */
function withHookAnswer(gate: PermissionGate, hook: NonNullable<PermissionRequest['hook']>, changed?: ToolCall): ExplainingGate {
  const inner = gate as ExplainingGate;
  const asked = new WeakMap<PermissionRequest, PermissionRequest>();
  return {
    policy: inner.policy,
    additionalDirs: inner.additionalDirs,
    check(request) {
      // An `ask` names its reason in the question the user sees.
      const reason = hook.verdict === 'ask' && hook.reason ? ` (PreToolUse hook: ${hook.reason})` : '';
      const summary = `${request.summary}${changed ? ` ${INPUT_CHANGED_MARK}` : ''}${reason}`;
      const told = { ...request, summary, hook, ...(changed ? { call: changed } : {}) };
      asked.set(request, told);
      return inner.check(told);
    },
    ...(typeof inner.denialMessage === 'function' ? { denialMessage: (request: PermissionRequest) => inner.denialMessage?.(asked.get(request) ?? request) ?? '' } : {}),
  };
}

/**
 * PreToolUse and PostToolUse as a registry layer. Before the call goes on, the PreToolUse hooks
 * matching the tool run: a block (exit 2, `decision: block`, `permissionDecision: deny`) refuses
 * it with the hook's reason as the tool result, and nothing below runs; `allow` / `ask` travel
 * to the permission gate with the call; an `updatedInput` is what runs: every layer below judges
 * it, the gate's request carries it (`call`, and the summary says so), `ctx.onInputChanged` hears
 * of it first (the loop's `tool_call_input_changed`: the card is redrawn), and the result the
 * model reads begins with `changedInputNote`, since the call in its history is its own. After a call that succeeded, the PostToolUse hooks see
 * its `tool_response`; a block's reason (and any `additionalContext`) is added to the result the
 * model reads (the call has run).
 */
export function hooksRegistry(inner: ToolRegistry, hooks: SessionHooks): ToolRegistry {
  return {
    definitions: () => inner.definitions(),
    concurrent: (name) => inner.concurrent?.(name) ?? false,
    async execute(call, ctx): Promise<ToolMessage> {
      const pre = hooks.has('PreToolUse');
      const post = hooks.has('PostToolUse');
      if (!pre && !post) return inner.execute(call, ctx);
      let fields = { tool_name: call.name, tool_input: toolInput(call), tool_use_id: call.id };
      let run = ctx;
      let runCall = call;
      let changed: Record<string, unknown> | undefined;
      if (pre) {
        const verdict = await hooks.run('PreToolUse', call.name, fields, ctx.signal);
        // The turn is stopping (the controller was told): the call does not run, and the hook's reason is the user's.
        if (verdict.stop !== undefined) return { role: 'tool', tool_call_id: call.id, name: call.name, content: 'Not run: a hook stopped the turn.', is_error: true };
        if (verdict.block !== undefined) {
          return { role: 'tool', tool_call_id: call.id, name: call.name, content: `Blocked by a PreToolUse hook: ${verdict.block}`, is_error: true };
        }
        if (verdict.permission === 'allow' || verdict.permission === 'ask') {
          // The tool runs with the hook's input; everything below (plan mode, checkpoints, schema, rules, the question, the sandbox) judges that input.
          if (verdict.updatedInput) {
            runCall = { ...call, args: JSON.stringify(verdict.updatedInput) };
            if (!isDeepStrictEqual(verdict.updatedInput, fields.tool_input)) changed = verdict.updatedInput;
            fields = { ...fields, tool_input: verdict.updatedInput };
          }
          const answer = { verdict: verdict.permission, ...(verdict.reason ? { reason: verdict.reason } : {}) };
          run = { ...ctx, permissions: withHookAnswer(ctx.permissions, answer, changed ? runCall : undefined) };
          // Told before anything below runs, so the user sees the new input before any question about it.
          if (changed) ctx.onInputChanged?.(runCall);
        }
      }
      const result = await inner.execute(runCall, run);
      const after = post && !result.is_error ? await hooks.run('PostToolUse', call.name, { ...fields, tool_response: { content: result.content } }, ctx.signal) : undefined;
      const notes = after && after.stop === undefined ? [after.block, after.context].filter((n) => n !== undefined) : [];
      let content = notes.length ? `${result.content}\n\nPostToolUse hook: ${notes.join('\n')}` : result.content;
      // A cancelled call keeps its bare result: the card then keeps what the command printed.
      if (changed && result.content !== CANCELLED) content = `${changedInputNote(changed)}\n${content}`;
      return content === result.content ? result : { ...result, content };
    },
  };
}
