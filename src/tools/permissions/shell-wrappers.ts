import type { ShellWord } from './shell-parse.js';

/**
 * Commands that run another command given in their arguments, and how to find it: the options
 * they take (short flags, short options with a value, long ones), the operands before the
 * command (timeout's DURATION, chroot's NEWROOT) and what runs without one. An option not
 * listed here, or a word only known at run time where an option could be, leaves the command
 * unknown: deny rules then deny, allow rules do not allow.
 */
interface WrapperSpec {
  flags?: string;
  /** Short options that take a value, attached (`-n10`) or as the next word. */
  valued?: string;
  /** Short options whose value, if any, is attached (`xargs -i{}`). */
  attached?: string;
  long?: string[];
  /** Long options taking a value (`--name=v` or `--name v`). */
  longValued?: string[];
  /** Options after which it runs no command of its arguments (`env -S`, `sudo -e`): unknown. */
  unknown?: string[];
  operands?: number;
  /** NAME=VALUE words may precede the command (env, sudo). */
  assigns?: boolean;
  /** `nice -5`: a number is an option. */
  numeric?: boolean;
  /** Without a command: nothing runs, a shell runs (unknown), or this command runs. */
  none?: 'nothing' | 'shell' | string[];
  /** The command gets more arguments when it runs (xargs reads them from its input). */
  open?: boolean;
}

export const WRAPPERS: Record<string, WrapperSpec> = {
  command: { flags: 'pvV' },
  builtin: {},
  exec: { flags: 'cl', valued: 'a' },
  env: {
    flags: 'i0v',
    valued: 'uC',
    long: ['ignore-environment', 'null', 'debug', 'default-signal', 'ignore-signal', 'block-signal', 'list-signal-handling'],
    longValued: ['unset', 'chdir'],
    unknown: ['S', 'split-string'],
    assigns: true,
  },
  nice: { valued: 'n', longValued: ['adjustment'], numeric: true },
  nohup: {},
  time: { flags: 'pavq', valued: 'fo', long: ['portability', 'append', 'verbose', 'quiet'], longValued: ['format', 'output'] },
  timeout: { flags: 'v', valued: 'sk', long: ['preserve-status', 'foreground', 'verbose'], longValued: ['signal', 'kill-after'], operands: 1 },
  stdbuf: { valued: 'ioe', longValued: ['input', 'output', 'error'] },
  xargs: {
    flags: '0prtx',
    valued: 'aEdILnPs',
    attached: 'iel',
    long: ['null', 'no-run-if-empty', 'verbose', 'interactive', 'exit', 'open-tty', 'replace', 'eof', 'max-lines'],
    longValued: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    none: ['echo'],
    open: true,
  },
  sudo: {
    flags: 'AbEHiKklnPSsVv',
    valued: 'ugCDhprtTUR',
    long: [
      'askpass',
      'background',
      'preserve-env',
      'set-home',
      'login',
      'remove-timestamp',
      'reset-timestamp',
      'list',
      'non-interactive',
      'preserve-groups',
      'stdin',
      'shell',
      'validate',
    ],
    longValued: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user', 'chroot'],
    unknown: ['e', 'edit'],
    assigns: true,
    none: 'shell',
  },
  doas: { flags: 'nSs', valued: 'Cu', none: 'shell' },
  ionice: { flags: 't', valued: 'cn', long: ['ignore'], longValued: ['class', 'classdata'], unknown: ['p', 'P', 'u', 'pid', 'pgid', 'uid'] },
  setsid: { flags: 'cfw', long: ['ctty', 'fork', 'wait'] },
  chroot: { long: ['skip-chdir'], longValued: ['userspec', 'groups'], operands: 1, none: 'shell' },
  busybox: {},
  taskset: { flags: 'ac', long: ['all-tasks', 'cpu-list'], unknown: ['p', 'pid'], operands: 1 },
  flock: {
    flags: 'sxeunoF',
    valued: 'Ew',
    long: ['shared', 'exclusive', 'unlock', 'nonblock', 'nb', 'close', 'no-fork', 'verbose'],
    longValued: ['timeout', 'conflict-exit-code'],
    operands: 1,
  },
  watch: {
    flags: 'bcCdegprtwx',
    valued: 'nq',
    long: ['beep', 'color', 'no-color', 'differences', 'errexit', 'chgexit', 'precise', 'no-rerun', 'no-title', 'no-wrap', 'exec'],
    longValued: ['interval', 'equexit'],
  },
};

/** What a wrapper runs: the command's words (null: unknown), or `unknown`. */
export type Unwrapped = { command: ShellWord[]; assignNames: string[]; open: boolean } | 'unknown';

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=/;

/** The command `name` (a WRAPPERS entry) runs, given its arguments. */
export function unwrap(name: string, args: readonly ShellWord[]): Unwrapped | undefined {
  const spec = WRAPPERS[name];
  if (!spec) return undefined;
  const assignNames: string[] = [];
  let replace: string | undefined;
  let i = 0;
  options: while (i < args.length) {
    const w = args[i];
    if (w === null) return 'unknown';
    if (w === '--') {
      i++;
      break;
    }
    const assignment = spec.assigns ? ASSIGNMENT.exec(w) : null;
    if (assignment) {
      assignNames.push(assignment[1]);
      i++;
      continue;
    }
    if (w === '-' && name === 'env') {
      i++;
      continue;
    }
    if (w.startsWith('--')) {
      const [option, value] = [w.slice(2).split('=')[0], w.includes('=') ? w.slice(w.indexOf('=') + 1) : undefined];
      if (spec.unknown?.includes(option)) return 'unknown';
      if (option === 'replace') replace = value ?? '{}';
      if (spec.long?.includes(option)) i++;
      else if (spec.longValued?.includes(option)) i += value === undefined ? 2 : 1;
      else return 'unknown';
      continue;
    }
    if (!w.startsWith('-') || w.length === 1) break;
    if (spec.numeric && /^-\d+$/.test(w)) {
      i++;
      continue;
    }
    for (let j = 1; j < w.length; j++) {
      const c = w[j];
      const rest = w.slice(j + 1);
      if (spec.unknown?.includes(c)) return 'unknown';
      if (spec.flags?.includes(c)) continue;
      if (spec.attached?.includes(c)) {
        if (c === 'i') replace = rest || '{}';
        i++;
        continue options;
      }
      if (spec.valued?.includes(c)) {
        const value = rest || args[i + 1];
        if (value === null) return 'unknown';
        if (c === 'I' && name === 'xargs') replace = value;
        i += rest ? 1 : 2;
        continue options;
      }
      return 'unknown';
    }
    i++;
  }
  i += spec.operands ?? 0;
  let command = args.slice(i);
  if (command.length === 0) {
    if (spec.none === 'shell') return 'unknown';
    command = Array.isArray(spec.none) ? spec.none : [];
  }
  if (replace !== undefined) {
    const r = replace;
    command = command.map((w) => (w !== null && w.includes(r) ? null : w));
  }
  return { command, assignNames, open: spec.open === true };
}
