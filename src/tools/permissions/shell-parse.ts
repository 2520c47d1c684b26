import { createRequire } from 'node:module';

/**
 * The bash parser behind the bash permission rules: mvdan/sh (the `mvdan-sh` package, its
 * JavaScript build, which exposes the whole syntax tree), loaded at the first rule check that
 * needs it and resolved from node_modules at run time, next to dist/ or the source.
 *
 * `parseScript` turns a command line into what a rule can judge: every simple command it holds,
 * wherever it sits (lists, pipelines, subshells, groups, if/for/while/case bodies, function
 * bodies, `$(…)`, backticks, process substitution, here-documents), each word with its quoting
 * removed or `null` when its value is only known when it runs.
 */

/** A word's value with quoting removed, or null when it expands at run time. */
export type ShellWord = string | null;

/** One simple command as written (a `CallExpr`, or a `declare`/`export`/`local`/… clause). */
export interface WrittenCommand {
  /** Leading `NAME=VALUE` assignments, as written with quoting removed (null: not static). */
  assigns: ShellWord[];
  /** The names those assignments set (and those a declare clause sets). */
  assignNames: string[];
  /** The command's words: its name, then its arguments. */
  words: ShellWord[];
  /** A declare clause (`declare`, `export`, `local`, `readonly`, `typeset`), not a call. */
  clause?: boolean;
  /** A declare clause that sets a variable whose name is only known at run time, or a nameref (`-n`). */
  dynamicName?: boolean;
}

export interface ParsedScript {
  commands: WrittenCommand[];
  /**
   * Something an allow rule cannot vouch for: a redirection that writes a file (not /dev/null),
   * arithmetic (`$((…))`, `((…))`, `for ((…))`, `let`, `[[ … ]]`, array subscripts, `${!x}`:
   * bash evaluates variables' contents there, command substitutions included).
   */
  unprovable: string[];
  /**
   * Literal text holding `$(` or a backtick (quoted or escaped) in a line that also has a place
   * where bash evaluates text as arithmetic: `((…))`, `$((…))`, `let`, `[[ … ]]`, a declare
   * clause, or a builtin that takes a variable name (`test -v`, `printf -v`, `read`, `unset`, …).
   * An array subscript there (`'a[$(cmd)]'`) runs `cmd`, so what the line runs is unknown.
   */
  evaluatesCode: boolean;
  /** Variables `for NAME in …` / `select NAME in …` set. */
  loopNames: string[];
  /**
   * Why what the line runs is unknown though every command word is written out: a `${x@P}`
   * expansion (prompt expansion runs the command substitutions in the value), or a value only
   * known at run time (`read`, `mapfile`, `printf -v`, `getopts`, a loop over expansions, an
   * assignment from an expansion, any `$(…)` or `<(…)`, a glob's file names) in a line where
   * bash evaluates text as arithmetic (an array subscript in it runs commands).
   */
  unknown: string[];
}

/** Builtins that take a variable name, whose array subscript bash evaluates as arithmetic. */
const NAME_BUILTINS = new Set(['test', '[', 'printf', 'read', 'unset', 'wait', 'mapfile', 'readarray', 'getopts', 'let']);
const CODE_TEXT = /\$\(|`/;
/** Builtins that set variables from what they read, or from their arguments at run time. */
const READING_BUILTINS = new Set(['read', 'mapfile', 'readarray', 'getopts']);
/** `${x@OP}` operators that only quote or change case; any other (`@P`) may run commands. */
const INERT_TRANSFORMS = new Set(['Q', 'E', 'A', 'K', 'k', 'a', 'U', 'u', 'L']);
/** mvdan/sh's ExpOperator for `${x@OP}`. */
const OTHER_PARAM_OPS = 84;
/** mvdan/sh's BinTestOperator for `-eq`, `-ne`, `-le`, `-ge`, `-lt`, `-gt`. */
const ARITHMETIC_TESTS = new Set([116, 117, 118, 119, 120, 121]);
/** mvdan/sh's UnTestOperator for `-v` (a subscript in its name is arithmetic). */
const VAR_SET_TEST = 110;

/** A command line the parser rejects; rules treat it as unknown (deny denies, allow does not allow). */
export class ShellSyntaxError extends Error {}

interface Syntax {
  NewParser(): { Parse(src: string, name: string): unknown };
  NodeType(node: unknown): string;
  Walk(node: unknown, fn: (node: any) => boolean): void;
}

let syntax: Syntax | undefined;

function parser(): Syntax {
  if (syntax) return syntax;
  const hadRequire = 'require' in globalThis;
  let loaded: { syntax: Syntax };
  try {
    const require = createRequire(import.meta.url);
    loaded = require('mvdan-sh');
  } catch (err) {
    // Without the parser no line can be judged: deny rules deny, allow rules do not allow.
    throw new ShellSyntaxError(`the bash parser (mvdan-sh) cannot be loaded: ${(err as Error).message.split('\n')[0]}`);
  }
  // Its GopherJS runtime sets a global `require`; ES modules should not see one.
  if (!hadRequire) delete (globalThis as { require?: unknown }).require;
  syntax = loaded.syntax;
  return syntax;
}

const NUL_DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);
/** Redirection operators, longest first, as they appear in the source. */
const REDIRECT_OPS = ['&>>', '<<<', '<<-', '&>', '>>', '>|', '<>', '>&', '<&', '<<', '>', '<'];
const WRITING_OPS = new Set(['&>>', '&>', '>>', '>|', '<>', '>']);

/** Parse `source` as bash. Throws ShellSyntaxError when it does not parse. */
export function parseScript(source: string): ParsedScript {
  const sh = parser();
  let file: unknown;
  try {
    file = sh.NewParser().Parse(source, '');
  } catch (err) {
    const e = err as { Error?: () => string };
    throw new ShellSyntaxError(typeof e?.Error === 'function' ? e.Error() : String(err));
  }
  const bytes = Buffer.from(source, 'utf8');
  const commands: WrittenCommand[] = [];
  const unprovable: string[] = [];
  const loopNames: string[] = [];
  const unknown: string[] = [];
  let codeText = false;
  let evaluator = false;
  let runtimeValue = false;
  let arithmetic = false;
  /** Arrays assigned by subscript (`a[i]=…`, `a=([i]=…)`), and those declared associative (`declare -A`). */
  const subscripted: string[] = [];
  const associative = new Set<string>();
  sh.Walk(file, (node) => {
    if (!node) return true;
    const type = sh.NodeType(node);
    if ((type === 'Lit' || type === 'SglQuoted') && CODE_TEXT.test(String(node.Value))) codeText = true;
    if (['ArithmCmd', 'ArithmExp', 'LetClause', 'CStyleLoop', 'TestClause', 'DeclClause'].includes(type)) evaluator = true;
    switch (type) {
      case 'CallExpr': {
        const call = callOf(sh, node);
        if (call.words[0] == null || NAME_BUILTINS.has(call.words[0])) evaluator = true;
        const name = builtinName(call.words);
        if ((name !== null && READING_BUILTINS.has(name)) || (name === 'printf' && call.words.some((w) => w?.startsWith('-v')))) runtimeValue = true;
        if (call.assigns.includes(null) || (node.Args ?? []).some((w: unknown) => globbed(sh, w))) runtimeValue = true;
        if ((name === 'test' || name === '[') && call.words.includes('-v')) arithmetic = true;
        commands.push(call);
        break;
      }
      case 'DeclClause': {
        const decl = declOf(sh, node);
        if (decl.words.includes(null)) runtimeValue = true;
        if (decl.words.some((w) => w !== null && /^-\w*i/.test(w))) arithmetic = true;
        if (decl.words.some((w) => w !== null && /^-\w*A/.test(w))) for (const n of decl.assignNames) associative.add(n);
        commands.push(decl);
        break;
      }
      case 'WordIter':
        loopNames.push(node.Name?.Value ?? '');
        if ((node.Items ?? []).some((w: unknown) => wordText(sh, w) === null)) runtimeValue = true;
        if (node.Items === undefined || node.Items === null || node.Items.length === 0) runtimeValue = true;
        break;
      case 'Redirect':
        if (writesFile(sh, node, bytes)) unprovable.push('a redirection that writes a file');
        break;
      case 'ArithmCmd':
      case 'ArithmExp':
      case 'LetClause':
      case 'CStyleLoop':
      case 'BinaryArithm':
      case 'UnaryArithm':
        unprovable.push('arithmetic or a [[ test ]]');
        arithmetic = true;
        break;
      case 'TestClause':
        unprovable.push('arithmetic or a [[ test ]]');
        break;
      // Inside `[[ … ]]` only these evaluate their operands as arithmetic.
      case 'BinaryTest':
        if (ARITHMETIC_TESTS.has(node.Op)) arithmetic = true;
        break;
      case 'UnaryTest':
        if (node.Op === VAR_SET_TEST) arithmetic = true;
        break;
      // Their output may be anything, and reach arithmetic through a variable or `set --`.
      case 'CmdSubst':
      case 'ProcSubst':
        runtimeValue = true;
        break;
      case 'ParamExp':
        if (node.Index || node.Slice || node.Excl) {
          unprovable.push('an array subscript, a substring offset or an indirect expansion');
          // `${a[@]}` and `${!a[@]}` evaluate nothing; any other subscript, an offset, a name through `!` does.
          if (node.Slice || !(node.Index && sh.NodeType(node.Index) === 'Word' && /^[@*]$/.test(wordText(sh, node.Index) ?? ''))) arithmetic = true;
        }
        if (node.Exp?.Op === OTHER_PARAM_OPS && !INERT_TRANSFORMS.has(String(wordText(sh, node.Exp.Word)))) {
          unprovable.push('a ${x@P} expansion');
          unknown.push('a ${x@P} expansion (it runs the command substitutions in the value)');
        }
        break;
      case 'Assign':
        if (node.Index || node.Array) unprovable.push('an array assignment');
        if (node.Index || (node.Array?.Elems ?? []).some((e: any) => e.Index)) subscripted.push(node.Name?.Value ?? '');
        break;
    }
    return true;
  });
  // An indexed array's subscript is arithmetic; an associative array's key is not.
  if (subscripted.some((name) => !associative.has(name))) arithmetic = true;
  if (runtimeValue && arithmetic) unknown.push('a value only known at run time, evaluated as arithmetic (an array subscript in it runs commands)');
  return { commands, unprovable, evaluatesCode: codeText && evaluator, loopNames, unknown };
}

/** The builtin a simple command runs: its first word, or the one after `builtin` / `command`. */
function builtinName(words: readonly ShellWord[]): ShellWord {
  return words[0] === 'builtin' || words[0] === 'command' ? (words[1] ?? null) : (words[0] ?? null);
}

/** Is `word` an unquoted glob? The file names it expands to are the workspace's, any text. */
function globbed(sh: Syntax, word: any): boolean {
  return (word.Parts ?? []).some((p: any) => sh.NodeType(p) === 'Lit' && EXPANDING.test(String(p.Value).replace(/\\./gs, '')));
}

function callOf(sh: Syntax, node: any): WrittenCommand {
  const assigns: ShellWord[] = [];
  const assignNames: string[] = [];
  for (const a of node.Assigns ?? []) {
    const name = a.Name?.Value ?? '';
    assignNames.push(name);
    const value = a.Value ? wordText(sh, a.Value) : '';
    assigns.push(value === null || a.Index || a.Array ? null : `${name}${a.Append ? '+=' : '='}${value}`);
  }
  return { assigns, assignNames, words: (node.Args ?? []).map((w: unknown) => wordText(sh, w)) };
}

function declOf(sh: Syntax, node: any): WrittenCommand {
  const variant: string = node.Variant?.Value ?? 'declare';
  const words: ShellWord[] = [variant];
  const assignNames: string[] = [];
  let dynamicName = false;
  for (const a of node.Args ?? []) {
    if (a.Naked) {
      const word = a.Name ? a.Name.Value : a.Value ? wordText(sh, a.Value) : null;
      words.push(word);
      if (a.Name) assignNames.push(a.Name.Value);
      // `declare "$n=…"`, `export "$n"=…`: the name is only known at run time.
      else if (word === null) dynamicName = true;
      // `declare -n ref=NAME` (a nameref: assigning ref assigns NAME); not `export -n`.
      else if (/^-\w*n/.test(word) && variant !== 'export') dynamicName = true;
      // `declare 'PS4=…'`: a quoted assignment still sets PS4.
      else if (/^[A-Za-z_]\w*(\[|\+?=)/.test(word)) assignNames.push(/^[A-Za-z_]\w*/.exec(word)?.[0] ?? '');
      continue;
    }
    const name = a.Name?.Value ?? '';
    assignNames.push(name);
    const value = a.Value ? wordText(sh, a.Value) : '';
    words.push(value === null || a.Array ? null : `${name}=${value}`);
  }
  return { assigns: [], assignNames, words, clause: true, ...(dynamicName ? { dynamicName } : {}) };
}

/** Does this redirection write a file? Reads the operator from the source at its position. */
function writesFile(sh: Syntax, node: any, bytes: Buffer): boolean {
  const at = node.OpPos.Offset();
  const text = bytes.subarray(at, at + 3).toString('latin1');
  const op = REDIRECT_OPS.find((o) => text.startsWith(o)) ?? '>';
  const target = node.Word ? wordText(sh, node.Word) : null;
  if (op === '>&') return target === null || !/^(\d+|-)$/.test(target);
  if (!WRITING_OPS.has(op)) return false;
  return target === null || !NUL_DEVICES.has(target);
}

/** Glob patterns (`*`, `?`, `[…]`): an unquoted word holding one may expand to file names. */
const EXPANDING = /[*?]|\[.*\]/s;

/**
 * The value of `word` with quotes and backslashes removed, or null when bash expands it at run
 * time: a parameter, command or arithmetic expansion, `$'…'`/`$"…"`, a glob or brace pattern or
 * a leading `~` outside quotes.
 */
export function wordText(sh: Syntax, word: any): ShellWord {
  let out = '';
  let unquoted = '';
  for (const part of word.Parts ?? []) {
    const type = sh.NodeType(part);
    if (type === 'Lit') {
      const raw: string = part.Value;
      unquoted += raw;
      out += raw.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
    } else if (type === 'SglQuoted' && !part.Dollar) {
      out += part.Value;
    } else if (type === 'DblQuoted' && !part.Dollar) {
      for (const inner of part.Parts ?? []) {
        if (sh.NodeType(inner) !== 'Lit') return null;
        out += String(inner.Value)
          .replace(/\\\n/g, '')
          .replace(/\\([$`"\\])/g, '$1');
      }
    } else {
      return null;
    }
  }
  const bare = unquoted.replace(/\\./gs, '');
  if (EXPANDING.test(bare)) return null;
  if (/\{.*(,|\.\.).*\}/s.test(bare)) return null;
  const first = word.Parts?.[0];
  if (first && sh.NodeType(first) === 'Lit' && String(first.Value).startsWith('~')) return null;
  return out;
}
