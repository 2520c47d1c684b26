import type { HookEvent } from '../config/hooks-schema.js';

/**
 * What a hook command's run means, as Claude Code defines it (pure):
 *
 * - exit 0: the step goes on; for UserPromptSubmit and SessionStart, plain stdout (or JSON
 *   `hookSpecificOutput.additionalContext`, also read for PostToolUse) is context for the model;
 *   stdout may hold JSON: `{"decision":"block","reason":…}` blocks,
 *   and for PreToolUse `{"hookSpecificOutput":{"permissionDecision":"allow"|"deny"|"ask",
 *   "permissionDecisionReason":…}}` answers the permission question (`"decision":"approve"` is
 *   the older spelling of allow), and with allow or ask `"updatedInput": {…}`, the input the tool
 *   runs with instead;
 * - any event, JSON `{"continue": false, "stopReason": …}`: the turn stops; the reason is for the
 *   user, not the model;
 * - exit 2: the step is blocked, stderr is the reason;
 * - any other exit, a command that cannot start, or one killed at its timeout: a warning for the
 *   user and the step goes on — a broken hook does not stop the work (Claude Code's rule too).
 */

/** How one command ended. */
export interface HookRun {
  /** The exit code; null when it was killed or never started. */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not start. */
  error?: string;
}

export type HookPermission = 'allow' | 'deny' | 'ask';

/** What the matching hooks of one step decided together. */
export interface HookVerdict {
  /** The step is blocked: this reason goes to the model (the user, for a prompt). */
  block?: string;
  /** PreToolUse: the hooks' answer to the permission question (deny > ask > allow). */
  permission?: HookPermission;
  /** The reason given with `permission` (shown when the user is asked). */
  reason?: string;
  /** PreToolUse with allow / ask: the input the tool runs with instead of the model's. */
  updatedInput?: Record<string, unknown>;
  /** A hook answered `continue: false`: the turn stops; this line (its `stopReason`) is for the user. */
  stop?: string;
  /** Text the hooks add for the model (UserPromptSubmit, SessionStart, PostToolUse). */
  context?: string;
  /** Lines for the user: hooks that failed, timed out or wrote to stderr. */
  warnings: string[];
}

/** How a hook is named in a warning: its event and its command. */
export interface HookLabel {
  event: HookEvent;
  command: string;
  timeoutSeconds: number;
}

const firstLine = (text: string) => text.trim().split('\n')[0] ?? '';
const shortCommand = (command: string) => (command.length > 60 ? `${command.slice(0, 57)}…` : command);

/** The verdict of one run of one hook. */
export function interpretRun(label: HookLabel, run: HookRun): HookVerdict {
  const name = `${label.event} hook \`${shortCommand(label.command)}\``;
  if (run.timedOut) return { warnings: [`${name} did not finish within ${label.timeoutSeconds}s and was stopped; the step went on`] };
  if (run.error !== undefined) return { warnings: [`${name} could not start: ${run.error}`] };
  if (run.code === 2) {
    const reason = run.stderr.trim() || `blocked by the ${label.event} hook \`${shortCommand(label.command)}\``;
    return label.event === 'PreToolUse' ? { block: reason, permission: 'deny', reason, warnings: [] } : { block: reason, warnings: [] };
  }
  if (run.code !== 0) {
    const said = firstLine(run.stderr);
    return { warnings: [`${name} exited with code ${run.code ?? 'none'}${said ? `: ${said}` : ''}`] };
  }
  return fromOutput(label.event, run.stdout);
}

/** Events whose plain stdout is context for the model (Claude Code's rule). */
const STDOUT_IS_CONTEXT: readonly HookEvent[] = ['UserPromptSubmit', 'SessionStart'];
/** Events whose `additionalContext` Keen passes on. */
const TAKES_CONTEXT: readonly HookEvent[] = [...STDOUT_IS_CONTEXT, 'PostToolUse'];

function fromOutput(event: HookEvent, stdout: string): HookVerdict {
  const text = stdout.trim();
  const plain = (): HookVerdict => (text && STDOUT_IS_CONTEXT.includes(event) ? { context: text, warnings: [] } : { warnings: [] });
  if (!text.startsWith('{')) return plain();
  let out: Record<string, unknown>;
  try {
    out = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return plain();
  }
  if (!out || typeof out !== 'object') return { warnings: [] };
  const verdict = fromJson(event, out);
  if (out.continue === false) verdict.stop = typeof out.stopReason === 'string' && out.stopReason.trim() !== '' ? firstLine(out.stopReason) : `the ${event} hook gave no reason`;
  const extra = (out.hookSpecificOutput as Record<string, unknown> | undefined)?.additionalContext;
  if (TAKES_CONTEXT.includes(event) && typeof extra === 'string' && extra.trim() !== '') verdict.context = extra.trim();
  return verdict;
}

function fromJson(event: HookEvent, out: Record<string, unknown>): HookVerdict {
  const reasonOf = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
  const specific = out.hookSpecificOutput as Record<string, unknown> | undefined;
  if (event === 'PreToolUse') {
    const answer = specific && typeof specific === 'object' ? specific.permissionDecision : undefined;
    const given = reasonOf(specific?.permissionDecisionReason) ?? reasonOf(out.reason);
    if (answer === 'deny' || out.decision === 'block') {
      const reason = given ?? `blocked by a ${event} hook`;
      return { block: reason, permission: 'deny', reason, warnings: [] };
    }
    const updated = specific?.updatedInput;
    const input = updated && typeof updated === 'object' && !Array.isArray(updated) ? { updatedInput: updated as Record<string, unknown> } : {};
    if (answer === 'ask') return { permission: 'ask', reason: given, ...input, warnings: [] };
    if (answer === 'allow' || out.decision === 'approve') return { permission: 'allow', reason: given, ...input, warnings: [] };
    return { warnings: [] };
  }
  if (out.decision === 'block') return { block: reasonOf(out.reason) ?? `blocked by a ${event} hook`, warnings: [] };
  return { warnings: [] };
}

const RANK: Record<HookPermission, number> = { deny: 3, ask: 2, allow: 1 };

/** The verdicts of every hook of one step, together: any block blocks (reasons joined), deny > ask > allow. */
export function combineVerdicts(verdicts: readonly HookVerdict[]): HookVerdict {
  const blocks = verdicts.flatMap((v) => (v.block ? [v.block] : []));
  let permission: HookVerdict['permission'];
  let reason: string | undefined;
  for (const v of verdicts) {
    if (v.permission && (!permission || RANK[v.permission] > RANK[permission])) {
      permission = v.permission;
      reason = v.reason;
    }
  }
  const contexts = verdicts.flatMap((v) => (v.context ? [v.context] : []));
  const stops = verdicts.flatMap((v) => (v.stop !== undefined ? [v.stop] : []));
  // Several hooks rewriting one call: the first in config order wins.
  const updatedInput = verdicts.find((v) => v.updatedInput)?.updatedInput;
  return {
    ...(stops.length ? { stop: stops.join('; ') } : {}),
    ...(blocks.length ? { block: blocks.join('\n') } : {}),
    ...(updatedInput && permission !== 'deny' ? { updatedInput } : {}),
    ...(permission ? { permission } : {}),
    ...(reason ? { reason } : {}),
    ...(contexts.length ? { context: contexts.join('\n') } : {}),
    warnings: verdicts.flatMap((v) => v.warnings),
  };
}
