import picomatch from 'picomatch';

/**
 * Glob matching for the glob and grep filters, with picomatch (dotfiles included): `*`, `**`,
 * `?`, `[abc]`/`[!a-z]`, `{a,b}`. A pattern without `/` matches a file's name at any depth
 * (`*.ts`); a pattern with `/` matches the whole path relative to the search directory
 * (`src/**\/*.ts`).
 */

/** True when `pattern` has a `/` that is not just a trailing one: it then matches whole paths. */
export function isPathPattern(pattern: string): boolean {
  return pattern.replace(/\/+$/, '').includes('/');
}

/**
 * The one glob compiler of Keen (tools and permission rules): picomatch with dotfiles matched and
 * the shell's `[!a-z]` negation (picomatch only knows `[^a-z]`).
 */
export function compileGlob(glob: string, options: { basename?: boolean } = {}): (path: string) => boolean {
  return picomatch(glob.replace(/(^|[^\\])\[!/g, '$1[^'), { dot: true, basename: options.basename ?? false });
}

/** A predicate over posix paths relative to the search directory. */
export function createGlobMatcher(pattern: string): (relPath: string) => boolean {
  const clean = pattern.trim().replace(/^\.\//, '').replace(/^\//, '');
  return compileGlob(clean, { basename: !isPathPattern(clean) });
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
