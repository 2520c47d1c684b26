import { type ParsedScript, parseScript, type ShellWord, ShellSyntaxError, type WrittenCommand } from './shell-parse.js';
import { unwrap } from './shell-wrappers.js';

/**
 * What a bash command line runs, for the permission rules: a pure function of its text.
 *
 * - `written`: every simple command as written (assignments, name, arguments; quoting removed).
 *   Allow rules judge these: each must match an allow rule as it stands.
 * - `runs`: every command that may run, for deny and ask rules: the written ones with the name
 *   reduced to its basename (`/usr/bin/touch` → `touch`) and assignments left out, plus what
 *   wrappers run (`env`, `nice`, `xargs`, `sudo`, … see shell-wrappers.ts), plus the commands in
 *   strings that a shell runs (`bash -c '…'`, `eval …`, `trap '…' EXIT`, `find -exec …`), parsed
 *   in turn. Where what runs is only known at run time (`eval "$X"`, `$CMD args`, `source f`,
 *   `bash script`, a shell reading its input, `alias`), the run is `UNKNOWN`: a command whose
 *   name and arguments are unknown, which every deny and ask rule may match.
 */
export interface RunningCommand {
  /** Name (a basename) then arguments; null where the word is only known at run time. */
  words: ShellWord[];
  /** More arguments of unknown value may follow (`xargs`, `find -exec … {} +`). */
  open: boolean;
  /**
   * Why this run is unknown when no written word says so (a variable a builtin sets, `fc`, …):
   * allow rules do not vouch for such a line either.
   */
  why?: string;
}

export type ShellAnalysis =
  | { ok: false; error: string }
  | {
      ok: true;
      written: WrittenCommand[];
      runs: RunningCommand[];
      /** Why no allow rule can vouch for the whole line (see ParsedScript.unprovable). */
      unprovable: string[];
    };

const UNKNOWN: RunningCommand = { words: [null], open: true };
/** Shells whose `-c` string is parsed; without `-c` they run a file or their input: unknown. */
const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'rbash']);
/** Variables that make bash, the loader, git or a pager/editor user run a command of their choosing. */
const CODE_VARIABLES = new Set([
  // Entries name the program a command word runs (`BASH_CMDS[ls]=/bin/rm`) or an alias.
  'BASH_CMDS',
  'BASH_ALIASES',
  'BASH_ENV',
  'ENV',
  'PS4',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'PAGER',
  'MANPAGER',
  'EDITOR',
  'VISUAL',
  'SSH_ASKPASS',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_EXTERNAL_DIFF',
  'GIT_ASKPASS',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
]);
/** git global options that take a value (the next word, or after `=`). */
const GIT_VALUED = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--exec-path', '--super-prefix', '--attr-source', '--list-cmds']);
/** `git -c` keys whose value is a command git may run (aliases, pagers, editors, helpers, drivers). */
const GIT_CODE_KEY =
  /^(alias\.|pager\.|filter\.|include|credential|gpg\.|diff\.|difftool\.|merge\.|mergetool\.|sequence\.|uploadpack\.|man\.|web\.|browser\.|sendemail\.|remote\..*\.(uploadpack|receivepack|vcs)$|core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|alternaterefscommand)$|init\.templatedir$)/i;
const MAX_DEPTH = 4;

const codeVariable = (name: string) => CODE_VARIABLES.has(name) || name.startsWith('BASH_FUNC_') || name.startsWith('GIT_CONFIG_KEY_');
const basename = (w: string) => w.slice(w.lastIndexOf('/') + 1);

const unknownBecause = (why: string): RunningCommand => ({ ...UNKNOWN, why });

function runsOfScript(source: string, depth: number): RunningCommand[] {
  if (depth > MAX_DEPTH) return [UNKNOWN];
  try {
    return runsOfParsed(parseScript(source), depth);
  } catch (err) {
    if (err instanceof ShellSyntaxError) return [UNKNOWN];
    throw err;
  }
}

function runsOfParsed(parsed: ParsedScript, depth: number): RunningCommand[] {
  const loop = parsed.loopNames.find(codeVariable);
  return [
    ...(parsed.evaluatesCode ? [UNKNOWN] : []),
    ...parsed.unknown.map(unknownBecause),
    ...(loop ? [unknownBecause(`a loop that sets ${loop}`)] : []),
    ...parsed.commands.flatMap((c) => runsOfWritten(c, depth)),
  ];
}

function runsOfWritten(c: WrittenCommand, depth: number): RunningCommand[] {
  const set = c.assignNames.find(codeVariable);
  const code = set ? [unknownBecause(`an assignment to ${set}`)] : [];
  if (c.dynamicName) code.push(unknownBecause('a variable whose name is only known at run time'));
  // A declare clause's words are already judged by name: it runs nothing else.
  if (c.clause) return [...code, { words: c.words, open: false }];
  return [...code, ...runsOf(c.words, false, depth)];
}

function runsOf(words: readonly ShellWord[], open: boolean, depth: number): RunningCommand[] {
  if (words.length === 0) return [];
  const head = words[0];
  if (head === null) return [{ words: [...words], open: true }];
  const name = basename(head);
  return [{ words: [name, ...words.slice(1)], open }, ...inner(name, words.slice(1), open, depth)];
}

const staticWords = (args: readonly ShellWord[]): string[] | undefined => (args.every((a) => a !== null) ? (args as string[]) : undefined);

/** What `name` runs besides itself, from its arguments. */
function inner(name: string, args: readonly ShellWord[], open: boolean, depth: number): RunningCommand[] {
  if (name === 'command' && commandOnlyLooksUp(args)) return [];
  const set = variablesSet(name, args);
  if (set === 'dynamic') return [unknownBecause(`${name} with a variable name only known at run time`)];
  const code = set.find((v) => codeVariable(v) || v.includes('['));
  if (code) return [unknownBecause(`${name} sets ${code}`)];
  if (name === 'fc' && !(fcOnlyLists(args) && !open)) return [unknownBecause('fc runs commands from the history')];
  const wrapped = unwrap(name, args);
  if (wrapped === 'unknown') return [UNKNOWN];
  if (wrapped) {
    const set = wrapped.assignNames.find(codeVariable);
    if (set) return [unknownBecause(`an assignment to ${set}`)];
    const command = wrapped.command;
    // `flock FILE -c STRING` and `watch CMD…` (joined, run by `sh -c` unless -x) run a string.
    if (name === 'flock' && (command[0] === '-c' || command[0] === '--command')) return command[1] == null ? [UNKNOWN] : runsOfScript(command[1], depth + 1);
    const joined = name === 'watch' ? staticWords(command) : undefined;
    if (name === 'watch' && !joined) return [UNKNOWN];
    return [...runsOf(command, open || wrapped.open, depth), ...(joined ? runsOfScript(joined.join(' '), depth + 1) : [])];
  }
  if (name === 'eval') {
    const words = staticWords(args);
    return words && !open ? runsOfScript(words.join(' '), depth + 1) : [UNKNOWN];
  }
  if (SHELLS.has(name)) return shellRuns(args, depth);
  if (name === 'source' || name === '.') return [UNKNOWN];
  if (name === 'trap') return trapRuns(args, depth);
  if (name === 'alias') return args.some((a) => a === null || a.includes('=')) || open ? [UNKNOWN] : [];
  if (name === 'hash') return args.some((a) => a === null || /^-\w*p/.test(a)) ? [UNKNOWN] : [];
  if (name === 'enable') return args.some((a) => a === null || /^-\w*f/.test(a)) ? [UNKNOWN] : [];
  if (name === 'find') return findRuns(args, open, depth);
  // `mapfile -C CALLBACK` / `compgen -C COMMAND` / `complete -C COMMAND` run a string.
  if (name === 'mapfile' || name === 'readarray' || name === 'compgen' || name === 'complete') return callbackRuns(args, depth);
  // What bash's `time` keyword leaves after `time --` / `time -p --`.
  if (name === '--') return runsOf(args, open, depth);
  if (name === 'git') return gitRuns(args, open);
  return [];
}

/** Options that take a value, per builtin that sets variables (`read -a NAME`: the value is a name). */
const SETTER_VALUED: Record<string, string> = { read: 'adinNptu', mapfile: 'dnOsuCc', readarray: 'dnOsuCc', printf: 'v' };
const DECLARATIONS = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

/**
 * The variables `name` sets from its arguments: `read NAME…` / `read -a NAME`, `mapfile NAME`,
 * `printf -v NAME`, `getopts OPTS NAME`, and (called as a command: `builtin declare …`) the
 * declaration builtins; `dynamic` when a name is only known at run time (or a nameref).
 */
function variablesSet(name: string, args: readonly ShellWord[]): string[] | 'dynamic' {
  if (name === 'getopts') return args[1] === null ? 'dynamic' : args[1] === undefined ? [] : [args[1]];
  if (DECLARATIONS.has(name)) {
    const out: string[] = [];
    for (const a of args) {
      if (a === null || (/^-\w*n/.test(a) && name !== 'export')) return 'dynamic';
      const m = /^([A-Za-z_]\w*)(\[|\+?=|$)/.exec(a);
      if (m) out.push(m[1]);
    }
    return out;
  }
  const valued = SETTER_VALUED[name];
  if (!valued) return [];
  const out: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === null) return 'dynamic';
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    for (let j = 1; j < a.length; j++) {
      if (!valued.includes(a[j])) continue;
      const value = a.slice(j + 1) || args[++i];
      if (value === null) return 'dynamic';
      if ((name === 'read' && a[j] === 'a') || (name === 'printf' && a[j] === 'v')) out.push(value ?? '');
      break;
    }
  }
  if (name === 'printf') return out;
  const operands = args.slice(i);
  if (operands.includes(null)) return 'dynamic';
  // mapfile takes one name (the array); read takes every operand as a name.
  return [...out, ...((name === 'read' ? operands : operands.slice(-1)) as string[])];
}

/** `fc -l` (with -n, -r and FIRST/LAST): lists the history, runs nothing. */
function fcOnlyLists(args: readonly ShellWord[]): boolean {
  if (args.some((a) => a === null)) return false;
  const options = (args as string[]).filter((a) => /^-\D/.test(a) && a !== '--');
  return options.length > 0 && options.every((o) => /^-[lnr]+$/.test(o)) && options.some((o) => o.includes('l'));
}

/** The string after `-C` (or `-Cstring`, or in a group `-xC string`), parsed as a script. */
function callbackRuns(args: readonly ShellWord[], depth: number): RunningCommand[] {
  if (args.some((a) => a === null)) return [UNKNOWN];
  const words = args as string[];
  const out: RunningCommand[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === '--') break;
    const at = /^-[^-]/.test(w) ? w.indexOf('C') : -1;
    if (at < 0) continue;
    const script = w.slice(at + 1) || words[i + 1];
    if (script === undefined) return [UNKNOWN];
    out.push(...runsOfScript(script, depth + 1));
  }
  return out;
}

/** `command -v NAME` / `-V`: prints what NAME is, runs nothing. */
function commandOnlyLooksUp(args: readonly ShellWord[]): boolean {
  for (const a of args) {
    if (a === null || !a.startsWith('-') || a === '--') return false;
    if (/[vV]/.test(a)) return true;
  }
  return false;
}

/**
 * `git` with its global options left out (`git -C dir push` is `git push`), so a rule naming a
 * subcommand sees it. A `-c` that sets a command git may run, `--config-env` or `--exec-path`
 * makes what runs unknown.
 */
function gitRuns(args: readonly ShellWord[], open: boolean): RunningCommand[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i];
    if (a === null) return [UNKNOWN];
    if (!a.startsWith('-') || a === '--') break;
    const [option, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const attached = /^-[Cc]./.test(a) ? a.slice(2) : undefined;
    const key = option === '-c' || /^-c./.test(a) ? (attached ?? args[i + 1]) : undefined;
    if (key === null || (key !== undefined && GIT_CODE_KEY.test(key.split('=')[0]))) return [UNKNOWN];
    if (option === '--config-env' || option === '--exec-path') return [UNKNOWN];
    i += GIT_VALUED.has(option) && inline === undefined && attached === undefined ? 2 : 1;
  }
  return i === 0 ? [] : [{ words: ['git', ...args.slice(i)], open }];
}

/** `bash -c STRING`: STRING parsed in turn (options before it skipped). */
function shellRuns(args: readonly ShellWord[], depth: number): RunningCommand[] {
  let c = false;
  let i = 0;
  for (; i < args.length; i++) {
    const w = args[i];
    if (w === null) return [UNKNOWN];
    if (w === '--' || w === '-') {
      i++;
      break;
    }
    if (w === '--rcfile' || w === '--init-file') {
      i++;
      continue;
    }
    if (w.startsWith('--')) continue;
    if (!/^[-+]/.test(w)) break;
    if (w.includes('c')) c = true;
    if (/[oO]/.test(w)) i++;
  }
  const script = args[i];
  if (!c || script === null) return [UNKNOWN];
  return script === undefined ? [] : runsOfScript(script, depth + 1);
}

/** `trap 'HANDLER' SIGNALS`: the handler runs later, in this shell. */
function trapRuns(args: readonly ShellWord[], depth: number): RunningCommand[] {
  const rest = args[0] === '--' ? args.slice(1) : args;
  const handler = rest[0];
  if (handler === null) return [UNKNOWN];
  if (handler === undefined || handler === '-' || handler.startsWith('-') || rest.length < 2) return [];
  return runsOfScript(handler, depth + 1);
}

/** `find … -exec CMD … ;` (and -execdir, -ok, -okdir): `{}` is a file name found at run time. */
function findRuns(args: readonly ShellWord[], open: boolean, depth: number): RunningCommand[] {
  if (open || args.some((a) => a === null)) return [UNKNOWN];
  const out: RunningCommand[] = [];
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i] as string)) continue;
    const command: ShellWord[] = [];
    for (i++; i < args.length && args[i] !== ';' && args[i] !== '+'; i++) command.push((args[i] as string).includes('{}') ? null : args[i]);
    out.push(...runsOf(command, false, depth));
  }
  return out;
}

const cache = new Map<string, ShellAnalysis>();
const CACHE_SIZE = 64;

/** Analyse a bash command line (memoised: a decision asks about the same line several times). */
export function analyzeCommand(command: string): ShellAnalysis {
  const hit = cache.get(command);
  if (hit) return hit;
  let analysis: ShellAnalysis;
  try {
    const parsed = parseScript(command);
    const runs = runsOfParsed(parsed, 0);
    const why = runs.flatMap((r) => (r.why ? [r.why] : []));
    analysis = { ok: true, written: parsed.commands, runs, unprovable: [...parsed.unprovable, ...why] };
  } catch (err) {
    if (!(err instanceof ShellSyntaxError)) throw err;
    analysis = { ok: false, error: err.message };
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(command, analysis);
  return analysis;
}
