import { KeenError } from '../../errors.js';
import type { RunningCommand } from './shell-command.js';
import type { WrittenCommand } from './shell-parse.js';

/**
 * A bash rule's command as words. `bash(git status)` is exactly `git status`;
 * `bash(git status:*)` and `bash(git status *)` are `git status` alone or followed by arguments;
 * `bash(git status*)` (no space or colon before the `*`) is read as commands whose words start
 * with `git` then a word starting with `status` (`git status-x` too), and warned about.
 */
export interface BashPattern {
  words: string[];
  /** Any further arguments match too. */
  prefix: boolean;
  /** The last word is a prefix of the command's word (a `*` with no word boundary before it). */
  partialLast: boolean;
}

/**
 * Split a rule's command into words the way the shell would for a plain command line: blanks
 * separate words, '…' and "…" quote, a backslash escapes one character. A `*`, `$` or `;` in a
 * rule is just a character. Throws a KeenError on an unclosed quote, unless `lenient` (an exact
 * rule, which also matches the whole line as text: a remembered here-document may hold a `'`).
 */
export function ruleWords(spec: string, entry: string, lenient = false): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i];
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    word ??= '';
    if (c === '\\' && i + 1 < spec.length) {
      word += spec[++i];
    } else if (c === "'" || c === '"') {
      const end = spec.indexOf(c, i + 1);
      if (end < 0 && lenient) return [...words, `${word}${spec.slice(i)}`];
      if (end < 0) throw new KeenError(`invalid permission rule "${entry}": unclosed ${c === "'" ? 'single' : 'double'} quote`);
      const quoted = spec.slice(i + 1, end);
      word += c === '"' ? quoted.replace(/\\([$`"\\])/g, '$1') : quoted;
      i = end;
    } else {
      word += c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

const basename = (w: string) => w.slice(w.lastIndexOf('/') + 1);

type Match = 'yes' | 'maybe' | 'no';

/**
 * Deny and ask rules: may `run` be a command `pattern` names? Names are compared by basename
 * (`/usr/bin/touch` is `touch`). A word only known at run time may be anything, so from the
 * first such word on the answer is `maybe`; so is a missing word of an open command.
 */
export function matchRunning(pattern: BashPattern, run: RunningCommand): Match {
  const n = pattern.words.length;
  for (let i = 0; i < n; i++) {
    if (i >= run.words.length) return run.open ? 'maybe' : 'no';
    const word = run.words[i];
    if (word === null) return 'maybe';
    const want = i === 0 ? basename(pattern.words[0]) : pattern.words[i];
    const have = i === 0 ? basename(word) : word;
    if (!(i === n - 1 && pattern.partialLast ? have.startsWith(want) : have === want)) return 'no';
  }
  if (pattern.prefix) return 'yes';
  const rest = run.words.slice(n);
  if (rest.length === 0) return run.open ? 'maybe' : 'yes';
  // Words that expand to nothing leave exactly the pattern.
  return rest.every((w) => w === null) ? 'maybe' : 'no';
}

/**
 * Allow rules: does `pattern` name `command` exactly as written (its assignments included, its
 * name as written: `./git` is not `git`)? Words only known at run time match only in the part a
 * prefix rule leaves open.
 */
export function matchWritten(pattern: BashPattern, command: WrittenCommand): boolean {
  const view = [...command.assigns, ...command.words];
  const n = pattern.words.length;
  if (view.length < n || (!pattern.prefix && view.length !== n)) return false;
  return pattern.words.every((want, i) => {
    const have = view[i];
    if (have === null) return false;
    return i === n - 1 && pattern.partialLast ? have.startsWith(want) : have === want;
  });
}
