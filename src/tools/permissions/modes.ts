import { KeenError } from '../../errors.js';

/**
 * Permission modes:
 * - `default`: read-only tools run inside the workspace, everything else asks (headless: denied).
 * - `acceptEdits`: file edits inside the workspace run too; bash and other tools still ask.
 * - `plan`: read-only; every mutating call is refused (by the plan-mode registry: it is the
 *   agent's plan mode, src/tools/plan-mode-registry.ts), bash runs in a read-only sandbox.
 * - `bypassPermissions` (`--yolo`): every call runs, except deny rules, protected paths and writes
 *   outside the workspace.
 */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** Parse `--permission-mode` / `permissions.defaultMode`; a bad value is a KeenError naming it. */
export function parseMode(value: string, where = '--permission-mode'): PermissionMode {
  if ((PERMISSION_MODES as readonly string[]).includes(value)) return value as PermissionMode;
  throw new KeenError(`unknown permission mode "${value}" (${where}); choose one of ${PERMISSION_MODES.join(', ')}`, 2);
}

/** The mode after `mode` in the REPL's Shift+Tab cycle. */
export function nextMode(mode: PermissionMode): PermissionMode {
  return PERMISSION_MODES[(PERMISSION_MODES.indexOf(mode) + 1) % PERMISSION_MODES.length];
}
