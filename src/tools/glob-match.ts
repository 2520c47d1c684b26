/**
 * Glob matching for the glob and grep filters and for list_dir's .gitignore basics.
 *
 * Supported: `*` (within one path segment), `**` (any number of segments), `?`, `[abc]`/`[!a-z]`,
 * `{a,b}`. A pattern without `/` matches a file's name at any depth (`*.ts`); a pattern with `/`
 * matches the whole path relative to the search directory (`src/**\/*.ts`).
 */

function escapeRegExp(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/** Split `a,b{c,d}` on top-level commas. */
function splitAlternatives(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of body) {
    if (ch === '{') depth++;
    if (ch === '}') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

function toSource(glob: string): string {
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const ch = glob[i];
    if (ch === '*' && glob[i + 1] === '*') {
      const atStart = i === 0 || glob[i - 1] === '/';
      const afterIsSlash = glob[i + 2] === '/';
      if (atStart && afterIsSlash) {
        out += '(?:.*/)?';
        i += 3;
      } else if (atStart && i + 2 === glob.length) {
        out += '.*';
        i += 2;
      } else {
        out += '[^/]*';
        i += 2;
      }
    } else if (ch === '*') {
      out += '[^/]*';
      i++;
    } else if (ch === '?') {
      out += '[^/]';
      i++;
    } else if (ch === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
        i++;
      } else {
        let body = glob.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        out += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close + 1;
      }
    } else if (ch === '{') {
      let depth = 0;
      let close = -1;
      for (let k = i; k < glob.length; k++) {
        if (glob[k] === '{') depth++;
        if (glob[k] === '}' && --depth === 0) {
          close = k;
          break;
        }
      }
      if (close === -1) {
        out += '\\{';
        i++;
      } else {
        out += `(?:${splitAlternatives(glob.slice(i + 1, close)).map(toSource).join('|')})`;
        i = close + 1;
      }
    } else if (ch === '\\' && i + 1 < glob.length) {
      out += escapeRegExp(glob[i + 1]);
      i += 2;
    } else {
      out += escapeRegExp(ch);
      i++;
    }
  }
  return out;
}

/** A RegExp matching a whole posix path (or name) against `glob`. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${toSource(glob)}$`);
}

/** True when `pattern` has a `/` that is not just a trailing one: it then matches whole paths. */
export function isPathPattern(pattern: string): boolean {
  return pattern.replace(/\/+$/, '').includes('/');
}

/** A predicate over posix paths relative to the search directory. */
export function createGlobMatcher(pattern: string): (relPath: string) => boolean {
  const clean = pattern.trim().replace(/^\.\//, '').replace(/^\//, '');
  const re = globToRegExp(clean);
  if (isPathPattern(clean)) return (rel) => re.test(rel);
  return (rel) => re.test(rel.slice(rel.lastIndexOf('/') + 1));
}

/**
 * The last segment of a pattern when it can safely narrow a ripgrep `--type-add` filter (which
 * matches file names only), else undefined.
 */
export function nameFilterOf(pattern: string): string | undefined {
  const last = pattern.trim().split('/').pop() ?? '';
  if (last === '' || last.includes('**') || last.includes(':')) return undefined;
  return last;
}
