/**
 * `/permissions` in the REPL: shows the mode and the rules in effect; `/permissions mode MODE`,
 * `/permissions allow|ask|deny RULE` change them for this session (config files are not edited).
 * Shift+Tab cycles the mode (`cycleMode`).
 */
import { errorText } from '../errors.js';
import { nextMode, parseMode, parseRule, type Policy, type PermissionMode } from '../tools/permissions/index.js';
import type { CommandHost } from './command-host.js';

export function permissionLines(policy: Policy): string[] {
  const list = (name: 'allow' | 'ask' | 'deny') =>
    policy[name].length === 0
      ? [`${name}: (none)`]
      : [
          `${name}:`,
          ...policy[name].map(
            (e) => `  ${e.rule.text}  (${e.source}${e.source === 'project' && name === 'allow' && !policy.projectTrusted ? ', ignored: project not trusted' : ''})`,
          ),
        ];
  return [
    `mode: ${policy.mode}  (Shift+Tab cycles; /permissions mode MODE)`,
    ...list('allow'),
    ...list('ask'),
    ...list('deny'),
    `extra directories: ${policy.additionalDirs.length ? policy.additionalDirs.join(', ') : '(none)'}`,
    'Add a rule for this session: /permissions allow|ask|deny RULE (rules: docs/permissions.md)',
  ];
}

/** Switch `policy` to `mode` and say so. */
export function setMode(rt: CommandHost, policy: Policy, mode: PermissionMode): void {
  policy.mode = mode;
  rt.showMode(mode);
  // One plan mode: entering or leaving `plan` here is /mode plan or /mode build (planModeHolder).
  rt.store.dispatch({ type: 'mode', mode: mode === 'plan' ? 'plan' : 'build' });
  rt.notice(`Permission mode: ${mode} (Shift+Tab cycles)`, 'muted');
}

export function cycleMode(rt: CommandHost, policy: Policy): void {
  setMode(rt, policy, nextMode(policy.mode));
}

export function permissionsCommand(rt: CommandHost, policy: Policy, args: string): void {
  const [verb, ...rest] = args.split(/\s+/).filter(Boolean);
  const value = rest.join(' ');
  try {
    if (!verb) {
      rt.append({ kind: 'block', title: 'Permissions', lines: permissionLines(policy) });
    } else if (verb === 'mode' && value) {
      setMode(rt, policy, parseMode(value, '/permissions mode'));
    } else if ((verb === 'allow' || verb === 'ask' || verb === 'deny') && value) {
      // Claude Code's names are aliases (`Bash` is bash); a rule naming no tool is an error.
      const rule = parseRule(value, policy.home, policy.known ?? { mcpServers: 'any' });
      policy[verb].push({ rule, source: 'session' });
      rt.notice(`Added ${verb} rule ${rule.text} for this session.`, 'success');
    } else {
      rt.notice('Usage: /permissions, /permissions mode MODE, /permissions allow|ask|deny RULE', 'error');
    }
  } catch (err) {
    rt.notice(errorText(err), 'error');
  }
}
