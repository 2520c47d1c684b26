import { parseScript, type ShellWord, ShellSyntaxError, type WrittenCommand } from './shell-parse.js';
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

function runsOfScript(source: string, depth: number): RunningCommand[] {
  if (depth > MAX_DEPTH) return [UNKNOWN];
  try {
    const parsed = parseScript(source);
    return [...(parsed.evaluatesCode ? [UNKNOWN] : []), ...parsed.commands.flatMap((c) => runsOfWritten(c, depth))];
  } catch (err) {
    if (err instanceof ShellSyntaxError) return [UNKNOWN];
    throw err;
  }
}

function runsOfWritten(c: WrittenCommand, depth: number): RunningCommand[] {
  const code = c.assignNames.some(codeVariable) ? [UNKNOWN] : [];
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
  const wrapped = unwrap(name, args);
  if (wrapped === 'unknown') return [UNKNOWN];
  if (wrapped) {
    if (wrapped.assignNames.some(codeVariable)) return [UNKNOWN];
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
    const runs = [...(parsed.evaluatesCode ? [UNKNOWN] : []), ...parsed.commands.flatMap((c) => runsOfWritten(c, 0))];
    analysis = { ok: true, written: parsed.commands, runs, unprovable: parsed.unprovable };
  } catch (err) {
    if (!(err instanceof ShellSyntaxError)) throw err;
    analysis = { ok: false, error: err.message };
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(command, analysis);
  return analysis;
}
