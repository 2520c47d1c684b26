import { CLAUDE_TOOL_ALIASES, canonicalTool } from '../tools/permissions/tool-names.js';

/**
 * A hook group's `matcher`, as Claude Code reads it: absent, `""` or `*` matches everything; a
 * list of plain names (`Bash|edit_file`, `mcp__github__*`) matches those names, `*` standing for
 * any run of characters; anything else is a regular expression that must match the whole name
 * (`mcp__.*__write.*`, `Notebook.*`). Claude Code's tool names mean Keen's tools (`Bash` is
 * `bash`, `Edit` is `edit_file`: src/tools/permissions/tool-names.ts). Pure.
 */
export type Matcher = (subject: string) => boolean;

const PLAIN = /^[\w*|-]*$/;

/** Claude Code's names of a Keen tool (`edit_file`: Edit, MultiEdit). */
function aliasesOf(name: string): string[] {
  return Object.entries(CLAUDE_TOOL_ALIASES)
    .filter(([, keen]) => keen === name)
    .map(([claude]) => claude);
}

const globToRegex = (glob: string) => new RegExp(`^${glob.replace(/[.+?^${}()[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);

/**
 * The matcher for `pattern`. Throws an Error naming the problem when it is neither a list of
 * names nor a valid regular expression (config load turns it into one line naming the field).
 */
export function compileMatcher(pattern: string | undefined): Matcher {
  const text = (pattern ?? '').trim();
  if (text === '' || text === '*') return () => true;
  if (PLAIN.test(text)) {
    const names = text.split('|').filter((n) => n !== '');
    const exact = new Set(names.filter((n) => !n.includes('*')).map(canonicalTool));
    const globs = names.filter((n) => n.includes('*')).map(globToRegex);
    return (subject) => exact.has(subject) || globs.some((g) => g.test(subject) || aliasesOf(subject).some((a) => g.test(a)));
  }
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${text})$`);
  } catch (err) {
    throw new Error(`the matcher "${text}" is not a valid regular expression: ${(err as Error).message}`);
  }
  return (subject) => re.test(subject) || aliasesOf(subject).some((a) => re.test(a));
}
