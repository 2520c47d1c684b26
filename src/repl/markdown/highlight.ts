/**
 * A small line-at-a-time syntax highlighter for code blocks: keywords, strings, numbers, comments
 * and type-like names for the languages agents print most. Line-based so streamed code can be
 * committed line by line; the only state carried between lines is an open block comment or an
 * open multi-line string. Pure and never throws: an unknown language is one plain token.
 */

export type TokenKind = 'plain' | 'keyword' | 'string' | 'number' | 'comment' | 'type' | 'add' | 'remove' | 'hunk';

export interface Token {
  text: string;
  kind: TokenKind;
}

/** What is still open at the end of a line: a block comment or a multi-line string's closer. */
export interface HighlightState {
  open?: { kind: 'comment' | 'string'; close: string };
}

interface LanguageSpec {
  keywords: ReadonlySet<string>;
  lineComment: string[];
  blockComment?: [string, string];
  /** Quote characters of single-line strings. */
  quotes: string[];
  /** Delimiters of strings that may span lines (`\``, `"""`). */
  multiline: string[];
  /** Capitalised identifiers are types (most C-like languages). */
  capitalTypes: boolean;
}

const words = (s: string) => new Set(s.split(/\s+/).filter(Boolean));

const JS = words(`
  abstract as async await break case catch class const constructor continue debugger declare default delete do else
  enum export extends false finally for from function get if implements import in instanceof interface keyof let new
  null of private protected public readonly return satisfies set static super switch this throw true try type typeof
  undefined var void while with yield`);
const PY = words(`
  and as assert async await break class continue def del elif else except False finally for from global if import in
  is lambda None nonlocal not or pass raise return self True try while with yield match case`);
const SH = words(`
  if then else elif fi for while until do done case esac in function return local export readonly unset echo exit
  set source alias cd`);
const GO = words(`
  break case chan const continue default defer else fallthrough for func go goto if import interface map package
  range return select struct switch type var nil true false`);
const RUST = words(`
  as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut
  pub ref return self Self static struct super trait true type unsafe use where while None Some Ok Err`);
const C_LIKE = words(`
  auto break case catch char class const continue default delete do double else enum extern false final float for
  goto if import int long namespace new null nullptr package private protected public return short signed sizeof
  static struct super switch template this throw throws true try typedef union unsigned using var virtual void
  volatile while boolean byte extends implements interface instanceof`);
const RUBY = words(`
  alias and begin break case class def do else elsif end ensure false for if in module next nil not or redo
  rescue retry return self super then true undef unless until when while yield require attr_accessor`);
const SQL = words(`
  select from where insert into values update set delete create table drop alter add index on join left right inner
  outer group by order having limit offset as and or not null is in like between distinct union primary key foreign
  references default SELECT FROM WHERE INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE DROP ALTER ADD INDEX ON JOIN
  LEFT RIGHT INNER OUTER GROUP BY ORDER HAVING LIMIT OFFSET AS AND OR NOT NULL IS IN LIKE BETWEEN DISTINCT UNION
  PRIMARY KEY FOREIGN REFERENCES DEFAULT`);
const NONE = new Set<string>();

const SPECS: Record<string, LanguageSpec> = {
  js: { keywords: JS, lineComment: ['//'], blockComment: ['/*', '*/'], quotes: ['"', "'"], multiline: ['`'], capitalTypes: true },
  py: { keywords: PY, lineComment: ['#'], quotes: ['"', "'"], multiline: ['"""', "'''"], capitalTypes: true },
  sh: { keywords: SH, lineComment: ['#'], quotes: ['"', "'"], multiline: [], capitalTypes: false },
  go: { keywords: GO, lineComment: ['//'], blockComment: ['/*', '*/'], quotes: ['"', "'"], multiline: ['`'], capitalTypes: true },
  rust: { keywords: RUST, lineComment: ['//'], blockComment: ['/*', '*/'], quotes: ['"'], multiline: [], capitalTypes: true },
  c: { keywords: C_LIKE, lineComment: ['//'], blockComment: ['/*', '*/'], quotes: ['"', "'"], multiline: [], capitalTypes: true },
  ruby: { keywords: RUBY, lineComment: ['#'], quotes: ['"', "'"], multiline: [], capitalTypes: true },
  sql: { keywords: SQL, lineComment: ['--'], blockComment: ['/*', '*/'], quotes: ["'", '"'], multiline: [], capitalTypes: false },
  json: { keywords: words('true false null'), lineComment: [], quotes: ['"'], multiline: [], capitalTypes: false },
  yaml: { keywords: words('true false null yes no'), lineComment: ['#'], quotes: ['"', "'"], multiline: [], capitalTypes: false },
  css: { keywords: NONE, lineComment: [], blockComment: ['/*', '*/'], quotes: ['"', "'"], multiline: [], capitalTypes: false },
};

const ALIASES: Record<string, string> = {
  javascript: 'js', jsx: 'js', mjs: 'js', cjs: 'js', ts: 'js', tsx: 'js', typescript: 'js', mts: 'js',
  python: 'py', py: 'py', python3: 'py',
  bash: 'sh', shell: 'sh', zsh: 'sh', console: 'sh', sh: 'sh', shellscript: 'sh',
  go: 'go', golang: 'go',
  rust: 'rust', rs: 'rust',
  c: 'c', h: 'c', cpp: 'c', 'c++': 'c', cc: 'c', hpp: 'c', java: 'c', kotlin: 'c', kt: 'c', cs: 'c', csharp: 'c', swift: 'c', scala: 'c', php: 'c',
  ruby: 'ruby', rb: 'ruby',
  sql: 'sql',
  json: 'json', jsonc: 'json', json5: 'json',
  yaml: 'yaml', yml: 'yaml', toml: 'yaml', ini: 'yaml',
  css: 'css', scss: 'css', less: 'css',
};

/** The canonical language for a fence info string (`ts`, `Python`, `diff`), or undefined. */
export function languageOf(info: string): string | undefined {
  const name = info.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (name === 'diff' || name === 'patch') return 'diff';
  return ALIASES[name];
}

function push(tokens: Token[], text: string, kind: TokenKind): void {
  if (!text) return;
  const last = tokens[tokens.length - 1];
  if (last && last.kind === kind) last.text += text;
  else tokens.push({ text, kind });
}

function diffLine(line: string): Token[] {
  if (line.startsWith('+++') || line.startsWith('---')) return [{ text: line, kind: 'hunk' }];
  if (line.startsWith('@@')) return [{ text: line, kind: 'hunk' }];
  if (line.startsWith('+')) return [{ text: line, kind: 'add' }];
  if (line.startsWith('-')) return [{ text: line, kind: 'remove' }];
  return line ? [{ text: line, kind: 'plain' }] : [];
}

const IDENT_START = /[A-Za-z_$]/;
const IDENT = /[A-Za-z0-9_$]/;
const DIGIT = /[0-9]/;
const NUMBER = /^(0[xX][0-9a-fA-F_]+|0[bB][01_]+|[0-9][0-9_]*(\.[0-9_]+)?([eE][+-]?[0-9]+)?)[a-zA-Z]*/;

/** Find `close` in `line` from `from`, honouring backslash escapes when `escapes`. */
function findClose(line: string, from: number, close: string, escapes: boolean): number {
  for (let i = from; i < line.length; i++) {
    if (escapes && line[i] === '\\') {
      i++;
      continue;
    }
    if (line.startsWith(close, i)) return i;
  }
  return -1;
}

/**
 * Tokens of one line of code in `lang` (a name from {@link languageOf} or any fence info), and the
 * state to pass to the next line.
 */
export function highlightLine(line: string, lang: string | undefined, state: HighlightState = {}): { tokens: Token[]; state: HighlightState } {
  const key = lang === 'diff' ? 'diff' : lang ? (ALIASES[lang] ?? (SPECS[lang] ? lang : undefined)) : undefined;
  if (key === 'diff') return { tokens: diffLine(line), state: {} };
  const spec = key ? SPECS[key] : undefined;
  if (!spec) return { tokens: line ? [{ text: line, kind: 'plain' }] : [], state: {} };

  const tokens: Token[] = [];
  let i = 0;
  let open = state.open;
  if (open) {
    const end = findClose(line, 0, open.close, open.kind === 'string');
    if (end < 0) {
      push(tokens, line, open.kind);
      return { tokens, state: { open } };
    }
    push(tokens, line.slice(0, end + open.close.length), open.kind);
    i = end + open.close.length;
    open = undefined;
  }

  while (i < line.length) {
    const rest = line.slice(i);
    const lineComment = spec.lineComment.find((c) => rest.startsWith(c));
    if (lineComment && (lineComment !== '#' || i === 0 || /\s/.test(line[i - 1]))) {
      push(tokens, rest, 'comment');
      break;
    }
    if (spec.blockComment && rest.startsWith(spec.blockComment[0])) {
      const [start, close] = spec.blockComment;
      const end = line.indexOf(close, i + start.length);
      if (end < 0) {
        push(tokens, rest, 'comment');
        open = { kind: 'comment', close };
        break;
      }
      push(tokens, line.slice(i, end + close.length), 'comment');
      i = end + close.length;
      continue;
    }
    const multi = spec.multiline.find((q) => rest.startsWith(q));
    if (multi) {
      const end = findClose(line, i + multi.length, multi, true);
      if (end < 0) {
        push(tokens, rest, 'string');
        open = { kind: 'string', close: multi };
        break;
      }
      push(tokens, line.slice(i, end + multi.length), 'string');
      i = end + multi.length;
      continue;
    }
    const ch = line[i];
    if (spec.quotes.includes(ch)) {
      const end = findClose(line, i + 1, ch, true);
      const stop = end < 0 ? line.length : end + 1;
      push(tokens, line.slice(i, stop), 'string');
      i = stop;
      continue;
    }
    if (DIGIT.test(ch) && (i === 0 || !IDENT.test(line[i - 1]))) {
      const m = NUMBER.exec(rest);
      const text = m ? m[0] : ch;
      push(tokens, text, 'number');
      i += text.length;
      continue;
    }
    if (IDENT_START.test(ch)) {
      let j = i + 1;
      while (j < line.length && IDENT.test(line[j])) j++;
      const word = line.slice(i, j);
      const kind: TokenKind = spec.keywords.has(word) ? 'keyword' : spec.capitalTypes && /^[A-Z][a-z0-9]/.test(word) ? 'type' : 'plain';
      push(tokens, word, kind);
      i = j;
      continue;
    }
    push(tokens, ch, 'plain');
    i++;
  }
  return { tokens, state: open ? { open } : {} };
}
