/**
 * Whether `keen WORDS…` is a mistyped subcommand rather than a first message for the REPL. Pure:
 * the caller passes the arguments and what the command line knows.
 */
import { editDistance } from '../config/model-lookup.js';

/** What the command line knows: its option flags and its commands. */
export interface CommandLine {
  /** How each option flag of `keen` (`-m`, `--model`) takes a value. */
  flags: ReadonlyMap<string, 'none' | 'required' | 'optional'>;
  /** Every command's name and aliases. */
  commands: readonly string[];
  /** Words that follow a command (`list`, `add`, `bash` …): the arguments commands take. */
  argumentWords: readonly string[];
}

export interface Mistyped {
  /** The word at fault. */
  word: string;
  /** The command it is close to, if any. */
  suggestion?: string;
  /** The words from the mistyped one on (what `keen -- …` would send). */
  words: string[];
}

/**
 * The rule, for `keen` started without `-p` (a headless run sends what it is given):
 * - one argument without blanks (`keen sesions`, `keen bogus`) is a mistyped command, never a
 *   first message — a message has blanks (`keen "fix the bug"`);
 * - several arguments are a mistyped command only when the first is a bare word close to a
 *   command (one edit for a word of up to four letters, two for a longer one; a swap of
 *   neighbours is one edit) and every later one is an option (`--all`) or a word commands take
 *   (`list`, `add`, `bash` …): `keen sesion list`, `keen compat --continue`. `keen compare a.ts
 *   b.ts` and `keen hello there` are first messages.
 * Nothing after `--` counts: `keen -- sesion list` sends it.
 */
export function mistypedCommand(args: readonly string[], cli: CommandLine): Mistyped | undefined {
  const words = positionalFrom(args, cli.flags);
  if (!words || words.length === 0) return undefined;
  const [first, ...rest] = words;
  if (cli.commands.includes(first)) return undefined;
  const suggestion = closestCommand(first, cli.commands);
  if (rest.length === 0) return /\s/.test(first) ? undefined : { word: first, suggestion, words };
  if (!suggestion || !/^[a-z][a-z-]*$/i.test(first)) return undefined;
  const vocabulary = new Set([...cli.commands, ...cli.argumentWords]);
  if (!rest.every((w) => w.startsWith('-') || vocabulary.has(w.toLowerCase()))) return undefined;
  return { word: first, suggestion, words };
}

/** The command `word` is one slip away from (see mistypedCommand), if one is. */
export function closestCommand(word: string, commands: readonly string[]): string | undefined {
  const limit = word.length <= 4 ? 1 : 2;
  let best: { name: string; d: number } | undefined;
  for (const name of commands) {
    const d = editDistance(word.toLowerCase(), name);
    if (d <= limit && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/**
 * The arguments from the first positional one on, skipping the options before it (and their
 * values) as commander would; undefined when the run is headless (`-p`, `--input-format`), when
 * an option is one `keen` does not know (commander reports it) or when `--` comes first.
 */
function positionalFrom(args: readonly string[], flags: CommandLine['flags']): string[] | undefined {
  if (args.some((a, i) => (a === '-p' || a === '--print' || a.startsWith('--input-format')) && !args.slice(0, i).includes('--'))) return undefined;
  let i = 0;
  while (i < args.length && args[i].startsWith('-') && args[i] !== '-') {
    if (args[i] === '--') return undefined;
    const [flag, inline] = args[i].split('=', 2);
    const takes = flags.get(flag);
    if (!takes) return undefined;
    i++;
    if (inline !== undefined || takes === 'none') continue;
    if (takes === 'required' || (i < args.length && !args[i].startsWith('-'))) i++;
  }
  return args.slice(i);
}
