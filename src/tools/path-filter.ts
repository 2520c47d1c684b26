import { realpath } from 'node:fs/promises';
import { sep, relative, isAbsolute, join } from 'node:path';
import type { ExplainingGate } from './permissions/gates.js';
import type { Policy, RuleEntry } from './permissions/decide.js';
import { isInside } from './permissions/request.js';
import { ruleMatches } from './permissions/rules.js';
import type { PermissionRequest, ToolContext } from './types.js';

/**
 * What a searching tool (grep, glob, list_dir) leaves out of its results, so that a file the path
 * rules keep from `read_file` does not leave through a search instead. A result is left out when
 * its path — lexical and real (symlinks resolved, as rules see paths) — is covered by:
 * - a deny path rule of `read_file` or of the tool itself (`read_file(.env)`, `grep(secrets/**)`);
 * - an ask path rule the call itself did not match (the user approved the call, not its results);
 * - a credential folder (`Policy.sensitive`) that does not hold the search root, unless an allow
 *   path rule covers the result.
 * Names are left out too (glob, list_dir): a deny rule hides that the file exists. The tool says
 * how many results it left out, never which.
 */
export interface ResultFilter {
  /**
   * Whether to leave out `abs`, a path below the search root that ripgrep reached without
   * following symlinks (its real path is the root's real path plus the rest).
   */
  drops(abs: string): boolean;
  /** Whether to leave out `abs`, a directory entry that may itself be a symlink (resolved). */
  dropsEntry(abs: string): Promise<boolean>;
  /** `--glob !…` flags so that ripgrep (run in `rgCwd`) never even opens a denied file. */
  rgExcludes(rgCwd: string): string[];
  /** The distinct paths left out so far. */
  readonly dropped: number;
}

const NOTHING: ResultFilter = { drops: () => false, dropsEntry: async () => false, rgExcludes: () => [], dropped: 0 };

/** The live policy behind a tool context's gate, if the gate exposes one. */
function policyOf(ctx: Pick<ToolContext, 'permissions'>): Policy | undefined {
  return (ctx.permissions as ExplainingGate).policy;
}

/** The part of a policy and call that decides which results stay (see `hiddenByRules`). */
export interface FilterScope {
  policy: Policy;
  tool: string;
  /** The real workspace roots (cwd, its real path, the additional directories). */
  roots: readonly string[];
  /** The real path of the search root (the call's own request path). */
  searchRoot: string;
  /** Worked out once per call by `resultFilter`: the policy's path rules and the credential folders that do not hold the search root. */
  prepared?: PreparedRules;
}

interface PreparedRules {
  deny: RuleEntry[];
  ask: RuleEntry[];
  allow: RuleEntry[];
  sensitiveElsewhere: string[];
}

function prepare(scope: FilterScope): PreparedRules {
  const { policy } = scope;
  return {
    deny: pathRules(policy.deny),
    ask: pathRules(policy.ask),
    allow: pathRules(policy.allow),
    sensitiveElsewhere: policy.sensitive.filter((s) => !isInside(s, scope.searchRoot)),
  };
}

function pathRules(entries: readonly RuleEntry[]): RuleEntry[] {
  return entries.filter((e) => e.rule.kind === 'path');
}

/**
 * Whether `p` (absolute) must be left out of a search's results under `scope`. Pure; applied to
 * both the lexical and the real path of every result.
 */
export function hiddenByRules(p: string, scope: FilterScope): boolean {
  const { policy, tool, roots } = scope;
  const rules = scope.prepared ?? prepare(scope);
  if (rules.deny.length === 0 && rules.ask.length === 0 && rules.sensitiveElsewhere.length === 0) return false;
  const request: PermissionRequest = { tool, summary: tool, access: 'read', paths: [p], cwd: roots[0] };
  const call: PermissionRequest = { ...request, paths: [scope.searchRoot] };
  if (rules.deny.some((e) => ruleMatches(e.rule, request, roots, 'some'))) return true;
  if (rules.ask.some((e) => !ruleMatches(e.rule, call, roots, 'some') && ruleMatches(e.rule, request, roots, 'some'))) return true;
  const sensitive = rules.sensitiveElsewhere.find((s) => isInside(s, p));
  if (!sensitive) return false;
  const counts = (e: RuleEntry) => e.source !== 'project' || policy.projectTrusted;
  return !rules.allow.some((e) => counts(e) && ruleMatches(e.rule, request, roots, 'every'));
}

/**
 * `--glob` excludes for ripgrep running in `rgCwd`, from the deny path rules it can express
 * exactly: a name glob (`.env`, `*.pem`: any depth), a workspace glob when rg runs at that root,
 * an absolute glob below `rgCwd`. Only ever excludes; the result filter still runs after. A name
 * glob also prunes a folder of that name (ripgrep globs match folders too), a little more than
 * the rule itself covers.
 */
export function denyExcludes(policy: Policy, tool: string, roots: readonly string[], rgCwd: string): string[] {
  const out: string[] = [];
  for (const { rule } of pathRules(policy.deny)) {
    if (rule.kind !== 'path' || (rule.tool !== 'read_file' && rule.tool !== tool)) continue;
    const glob = rule.glob.replace(/\/+$/, '');
    if (glob === '' || glob.startsWith('!')) continue;
    if (rule.base === 'workspace') {
      if (!glob.includes('/')) out.push('--glob', `!${glob}`);
      else if (roots.includes(rgCwd)) out.push('--glob', `!/${glob}`);
    } else {
      const prefix = `${rgCwd.split(sep).join('/')}/`;
      if (glob.startsWith(prefix) && glob.length > prefix.length) out.push('--glob', `!/${glob.slice(prefix.length)}`);
    }
  }
  return out;
}

async function real(p: string): Promise<string> {
  return realpath(p).catch(() => p);
}

/**
 * The result filter of one call of `tool` searching below `searchRoot` (absolute, lexical). No
 * filtering when the gate exposes no policy (a custom gate decides every call itself).
 */
export async function resultFilter(ctx: Pick<ToolContext, 'cwd' | 'permissions'>, tool: string, searchRoot: string): Promise<ResultFilter> {
  const policy = policyOf(ctx);
  if (!policy) return NOTHING;
  const cwdReal = await real(ctx.cwd);
  const roots = [...new Set([ctx.cwd, cwdReal, ...policy.additionalDirs])];
  const rootReal = await real(searchRoot);
  const scope: FilterScope = { policy, tool, roots, searchRoot: rootReal };
  const prepared = prepare(scope);
  scope.prepared = prepared;
  // A credential folder holding a path below a root either holds the root too or lies below it,
  // so for ripgrep's results only the folders related to the root can matter: asked once here,
  // not for every folder of every result.
  const related = (root: string): FilterScope => ({
    ...scope,
    prepared: { ...prepared, sensitiveElsewhere: prepared.sensitiveElsewhere.filter((s) => isInside(root, s) || isInside(s, root)) },
  });
  const belowLexical = related(searchRoot);
  const belowReal = related(rootReal);
  const left = new Set<string>();
  const judge = (lexical: string, realPath: string, lexicalScope = scope, realScope = scope): boolean => {
    const hidden = hiddenByRules(lexical, lexicalScope) || (realPath !== lexical && hiddenByRules(realPath, realScope));
    if (hidden) left.add(lexical);
    return hidden;
  };
  return {
    drops(abs) {
      const rel = relative(searchRoot, abs);
      if (rel === '') return judge(abs, rootReal);
      if (rel.startsWith('..') || isAbsolute(rel)) return judge(abs, abs);
      return judge(abs, join(rootReal, rel), belowLexical, belowReal);
    },
    async dropsEntry(abs) {
      return judge(abs, await real(abs));
    },
    // Workspace rules say nothing about a search elsewhere (an approved absolute path).
    rgExcludes: (rgCwd) => (roots.some((r) => isInside(r, rootReal)) ? denyExcludes(policy, tool, roots, rgCwd) : []),
    get dropped() {
      return left.size;
    },
  };
}

/** The note a tool adds when it left results out, or undefined. */
export function droppedNote(count: number, unit: 'file' | 'entry'): string | undefined {
  if (count === 0) return undefined;
  const noun = unit === 'file' ? (count === 1 ? 'file' : 'files') : count === 1 ? 'entry' : 'entries';
  return `[${count} ${noun} left out by the permission rules (deny and ask rules, credential folders)]`;
}
