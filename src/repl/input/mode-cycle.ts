/**
 * The REPL's Shift+Tab cycle of permission modes. bypassPermissions (every tool call runs
 * without asking) is in it only when the user chose it on the command line (`--yolo`,
 * `--permission-mode bypassPermissions`); otherwise it is reached only by typing
 * `/permissions mode bypassPermissions`, never by a key pressed once too often.
 */
import type { PermissionMode } from '../../tools/permissions/index.js';

const SAFE_CYCLE: readonly PermissionMode[] = ['default', 'acceptEdits', 'plan'];
const CYCLE_WITH_BYPASS: readonly PermissionMode[] = [...SAFE_CYCLE, 'bypassPermissions'];

/** How bypassPermissions is reached when it is not in the cycle. */
export const BYPASS_HINT = 'Shift+Tab skips bypassPermissions: type /permissions mode bypassPermissions';

/** The mode after `mode`; `bypassChosen`: the session was started in bypassPermissions. */
export function replNextMode(mode: PermissionMode, bypassChosen: boolean): PermissionMode {
  const cycle = bypassChosen ? CYCLE_WITH_BYPASS : SAFE_CYCLE;
  return cycle[(cycle.indexOf(mode) + 1) % cycle.length];
}
