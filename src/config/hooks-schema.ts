import * as z from 'zod';
import { once } from '../core/lazy.js';

/**
 * `hooks` in a config file: the team's own commands around each step, in the shape Claude Code's
 * settings use (docs/hooks.md):
 *
 *   {"hooks": {"PreToolUse": [{"matcher": "Bash|edit_file", "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}
 */
export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreCompact', 'Stop', 'Notification'] as const;

export type HookEvent = (typeof HOOK_EVENTS)[number];

/** `hooks`: built with the config schema, at its first use. */
export const hooksSchema = once(() => {
  const hookCommandSchema = z.strictObject({
    type: z.literal('command'),
    command: z.string().min(1),
    /** Seconds before the command is killed (default 60). */
    timeout: z.number().positive().optional(),
  });

  const hookGroupSchema = z.strictObject({
    /** Which tools (PreToolUse, PostToolUse) or which source/trigger the group is for; absent, `""` or `*`: all. */
    matcher: z.string().optional(),
    hooks: z.array(hookCommandSchema),
  });

  return z.partialRecord(z.enum(HOOK_EVENTS), z.array(hookGroupSchema));
});

export type HooksConfig = z.infer<ReturnType<typeof hooksSchema>>;
export type HookGroupConfig = NonNullable<HooksConfig[HookEvent]>[number];
export type HookCommandConfig = HookGroupConfig['hooks'][number];
