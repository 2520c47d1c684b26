import { posix as pathPosix, sep } from 'node:path';
import { KeenError } from '../../errors.js';
import { compileGlob } from '../glob-match.js';
import type { PermissionRequest } from '../types.js';
import { type BashPattern, matchRunning, matchWritten, ruleWords } from './bash-rule.js';
import { accessOf, bashCommandOf, FILE_READ_TOOLS, FILE_WRITE_TOOLS, isInside, posixRel } from './request.js';
import { analyzeCommand } from './shell-command.js';
import { forStream } from '../../security/terminal-text.js';
import { canonicalTool, type KnownTools, unknownToolReason } from './tool-names.js';
import { canonicalHost, canonicalRuleHost, domainCovers } from './fetch-host.js';

/**
 * Permission rules: one syntax for every tool, used by `permissions.allow` / `ask` / `deny`, by
 * `--allowed-tools` / `--disallowed-tools` and by what the REPL remembers for a session.
 *
 * - `write_file`, `bash`, `mcp__github`, `mcp__github__create_issue`: a bare tool name matches
 *   every call of that tool; `mcp__server` matches every tool of that MCP server, and a `*` in the
 *   name is a glob over tool names (`mcp__github__*`).
 * - `bash(npm test)`: exactly that command. `bash(git status:*)` or `bash(git status *)`: that
 *   command alone or followed by arguments (a word boundary); `bash(git status*)`: `git` then a
 *   word starting with `status` (so `git status-x` too; `prefixRuleWarning` says so at load).
 *   Rules match the parsed command line (bash-rule.ts, shell-command.ts), word by word with
 *   quoting removed: a deny or ask rule matches when any command the line may run matches, its
 *   name reduced to a basename and wrappers (`env`, `xargs`, `bash -c`, `eval`, …) unwrapped, or
 *   when what runs cannot be told before it runs (or the line does not parse). An allow rule
 *   allows a line only when every command in it, as written, matches an allow rule.
 * - `read_file(GLOB)`, `edit_file(GLOB)`, `write_file(GLOB)`, `glob(GLOB)`, `grep(GLOB)`,
 *   `list_dir(GLOB)`: path rules. Globs (picomatch, dotfiles included) are relative to the
 *   workspace (and each `--add-dir`), or absolute (`/etc/**`), or home-relative (`~/.ssh/**`). A
 *   glob without `/` matches a file name at any depth (`.env`, `*.pem`). `read_file(…)` covers
 *   every reading file tool (read_file, grep, glob, list_dir) and `edit_file(…)` every writing one
 *   (edit_file, write_file). Rules see real paths: symlinks and `..` are resolved first.
 * - `web_fetch(domain:example.com)`: that host and its subdomains; `domain:10.0.0.1`,
 *   `domain:[::1]`: that address only. Hosts compare in one spelling (fetch-host.ts).
 * - Claude Code's tool names are aliases (`Bash(git:*)` is `bash(git:*)`, `Read(./src/**)` is
 *   `read_file(src/**)`; tool-names.ts); the rule's `text` is Keen's spelling.
 */
export type Rule =
  | { text: string; tool: string; kind: 'tool' }
  | { text: string; tool: 'bash'; kind: 'exact'; command: string; pattern: BashPattern }
  | { text: string; tool: 'bash'; kind: 'prefix'; prefix: string; wordBoundary: boolean; pattern: BashPattern }
  | { text: string; tool: string; kind: 'path'; glob: string; base: 'workspace' | 'absolute'; match: (p: string) => boolean }
  | { text: string; tool: string; kind: 'domain'; domain: string };

export const PATH_RULE_TOOLS = new Set(['read_file', 'write_file', 'edit_file', 'glob', 'grep', 'list_dir']);

/**
 * Parse one rule. Throws a KeenError naming the rule when it is malformed, or — given `known` —
 * when its tool is no tool (a rule that matches nothing must not pass for one that protects);
 * `home` expands `~/`.
 */
export function parseRule(entry: string, home: string, known?: KnownTools): Rule {
  const trimmed = entry.trim();
  const m = /^([A-Za-z_*][A-Za-z0-9_*-]*)(?:\((.*)\))?$/s.exec(trimmed);
  if (!m) {
    throw new KeenError(`invalid permission rule "${entry}": use a tool name ("write_file"), "bash(<command>)" or "<file tool>(<glob>)"`, 2);
  }
  const tool = canonicalTool(m[1]);
  const spec = m[2]?.trim();
  const text = spec === undefined ? tool : `${tool}(${m[2]})`;
  const unknown = known ? unknownToolReason(tool, known) : undefined;
  if (unknown) throw new KeenError(`invalid permission rule "${trimmed}": ${unknown}`, 2);
  if (spec === undefined) return { text, tool, kind: 'tool' };
  if (spec === '' || spec === '*' || spec === '**') return { text, tool, kind: 'tool' };
  if (tool === 'bash') return parseBashRule(text, spec, entry);
  if (tool === 'web_fetch') {
    // `domain:*.example.com` is accepted as a synonym: a domain rule covers its subdomains anyway.
    // IPv6 in brackets; every spelling is compared in the URL parser's form (fetch-host.ts).
    const d = /^domain:(?:\*\.)?([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])$/.exec(spec);
    const domain = d ? canonicalRuleHost(d[1]) : undefined;
    if (!domain) {
      const host = /^[A-Za-z0-9.-]+$/.test(spec) ? spec : 'docs.python.org';
      throw new KeenError(`invalid permission rule "${entry}": web_fetch takes "domain:<host>", e.g. "web_fetch(domain:${host})"`, 2);
    }
    return { text, tool, kind: 'domain', domain };
  }
  if (!PATH_RULE_TOOLS.has(tool)) {
    throw new KeenError(`invalid permission rule "${entry}": only bash (a command), the file tools (a path glob) and web_fetch (a domain) take a pattern; use "${tool}"`, 2);
  }
  let glob = spec;
  let base: 'workspace' | 'absolute' = 'workspace';
  if (glob === '~' || glob.startsWith('~/')) {
    glob = pathPosix.join(home.split(sep).join('/'), glob.slice(1));
    base = 'absolute';
  } else if (glob.startsWith('/')) {
    base = 'absolute';
  } else {
    glob = glob.replace(/^\.\//, '');
  }
  const match = compileGlob(glob, { basename: base === 'workspace' && !glob.replace(/\/+$/, '').includes('/') });
  return { text, tool, kind: 'path', glob, base, match };
}

/** True when `rule` names `request.tool` (bare names, MCP server prefixes, `*` globs). */
function toolMatches(ruleTool: string, tool: string): boolean {
  if (ruleTool === tool) return true;
  if (ruleTool.includes('*')) return compileGlob(ruleTool)(tool);
  // `mcp__server` covers every `mcp__server__tool`. A server name may end in `_`, a tool part
  // never starts with one (src/tools/mcp/names.ts): `mcp__a___x` is server `a_`'s, not `a`'s.
  return /^mcp__[A-Za-z0-9_-]+$/.test(ruleTool) && !ruleTool.slice(5).includes('__') && tool.startsWith(`${ruleTool}__`) && tool[ruleTool.length + 2] !== '_';
}

function parseBashRule(text: string, spec: string, entry: string): Rule {
  const boundary = /(?::|\s)\*$/.exec(spec);
  if (!boundary && !spec.endsWith('*'))
    return { text, tool: 'bash', kind: 'exact', command: spec, pattern: { words: ruleWords(spec, entry, true), prefix: false, partialLast: false } };
  const prefix = spec.slice(0, boundary ? -boundary[0].length : -1);
  const words = ruleWords(prefix, entry);
  const partialLast = !boundary && !/\s$/.test(prefix) && words.length > 0;
  return { text, tool: 'bash', kind: 'prefix', prefix: prefix.trimEnd(), wordBoundary: !partialLast, pattern: { words, prefix: true, partialLast } };
}

/**
 * The one-line warning for a bash rule whose `*` has no word boundary before it
 * (`bash(git status*)`), saying how it is read; undefined for every other rule.
 */
export function prefixRuleWarning(entry: string): string | undefined {
  const m = /^(?:bash|Bash)\((.*)\)$/s.exec(entry.trim());
  if (!m) return undefined;
  const spec = m[1].trim();
  if (!spec.endsWith('*') || /(?::|\s)\*$/.test(spec) || spec === '*' || spec === '**') return undefined;
  const stem = spec.slice(0, -1);
  return (
    `the rule "${entry.trim()}" has no word boundary before its *: it matches every command starting with "${stem}" ("${stem}-x" too); ` +
    `write "bash(${stem}:*)" for "${stem}" alone or with arguments`
  );
}

/**
 * Config load: writes `prefixRuleWarning`'s line for `entry` to stderr once, naming the file
 * and the field, if it has one.
 */
export function warnAboutRule(file: string, field: string, entry: string): void {
  const warning = prefixRuleWarning(entry);
  const line = `keen: ${file}: ${field}: ${warning}\n`;
  if (!warning || warned.has(line)) return;
  warned.add(line);
  // The entry may come from a repository's config: escapes are shown, not sent, on a terminal.
  process.stderr.write(forStream(process.stderr, line));
}
/** Lines already written: a run may read a config file more than once. */
const warned = new Set<string>();

/** A rule over bash commands (`bash(…)`), as opposed to the bare tool name. */
type BashRule = Extract<Rule, { tool: 'bash'; kind: 'exact' | 'prefix' }>;
const isBashRule = (rule: Rule): rule is BashRule => rule.kind === 'exact' || rule.kind === 'prefix';

/** Deny and ask rules: may `command` run something `rule` names (or something unknown)? */
function bashMayMatch(rule: BashRule, command: string): boolean {
  if (rule.kind === 'exact' && command === rule.command) return true;
  const analysis = analyzeCommand(command);
  if (!analysis.ok) return true;
  return analysis.runs.some((run) => matchRunning(rule.pattern, run) !== 'no');
}

/**
 * Why `rule` (a deny or ask rule) matches `request` only in doubt — what the line runs cannot be
 * told before it runs (an expansion, `eval`, `source`, a line that does not parse) and no command
 * in it provably is one the rule names — or undefined when it matches for certain.
 */
export function matchesOnlyInDoubt(rule: Rule, request: PermissionRequest): string | undefined {
  if (!isBashRule(rule) || request.tool !== 'bash') return undefined;
  const command = bashCommandOf(request);
  if (rule.kind === 'exact' && command === rule.command) return undefined;
  const analysis = analyzeCommand(command);
  if (!analysis.ok) return 'the line does not parse';
  if (analysis.runs.some((run) => matchRunning(rule.pattern, run) === 'yes')) return undefined;
  const doubtful = analysis.runs.find((run) => run.why && matchRunning(rule.pattern, run) !== 'no');
  return doubtful?.why ?? 'an expansion as a command or argument, eval, source, or a shell reading its input';
}

/**
 * The allow rules that together cover `command`, or undefined: a rule naming the whole line
 * exactly, else every simple command of the line, as written, matched by one of `rules` — and
 * nothing in it that a rule cannot vouch for (a redirection to a file, arithmetic; see
 * ParsedScript.unprovable). A line that does not parse is covered by no rule.
 */
export function bashRulesCovering(rules: readonly Rule[], command: string): Rule[] | undefined {
  const bashRules = rules.filter(isBashRule);
  const whole = bashRules.find((r) => r.kind === 'exact' && r.command === command);
  if (whole) return [whole];
  if (bashRules.length === 0) return undefined;
  const analysis = analyzeCommand(command);
  if (!analysis.ok || analysis.unprovable.length > 0 || analysis.written.length === 0) return undefined;
  const used = new Set<Rule>();
  for (const written of analysis.written) {
    const rule = bashRules.find((r) => matchWritten(r.pattern, written));
    if (!rule) return undefined;
    used.add(rule);
  }
  return [...used];
}

/**
 * Does `rule` cover `request`? `how` is `every` for allow rules (all paths must match, every
 * command of a bash line must match) and `some` for ask and deny rules (any path, any command
 * the line may run, or doubt about what it runs).
 * `roots` are the real workspace roots, relative globs are matched against each.
 */
export function ruleMatches(rule: Rule, request: PermissionRequest, roots: readonly string[], how: 'every' | 'some'): boolean {
  if (rule.kind === 'tool') return toolMatches(rule.tool, request.tool);
  if (isBashRule(rule)) {
    if (request.tool !== 'bash') return false;
    const command = bashCommandOf(request);
    return how === 'every' ? bashRulesCovering([rule], command) !== undefined : bashMayMatch(rule, command);
  }
  if (rule.kind === 'domain') {
    const host = request.domain === undefined ? undefined : canonicalHost(request.domain);
    return toolMatches(rule.tool, request.tool) && host !== undefined && domainCovers(rule.domain, host);
  }
  if (!pathRuleCovers(rule.tool, request)) return false;
  const paths = request.paths ?? [];
  if (paths.length === 0) return false;
  const one = (p: string) => pathMatches(rule, p, roots);
  return how === 'every' ? paths.every(one) : paths.some(one);
}

function pathRuleCovers(ruleTool: string, request: PermissionRequest): boolean {
  const access = accessOf(request);
  if (ruleTool === 'read_file') return access === 'read' && FILE_READ_TOOLS.has(request.tool);
  if (ruleTool === 'edit_file') return access === 'write' && FILE_WRITE_TOOLS.has(request.tool);
  return ruleTool === request.tool;
}

function pathMatches(rule: Extract<Rule, { kind: 'path' }>, abs: string, roots: readonly string[]): boolean {
  const posix = abs.split(sep).join('/');
  if (rule.base === 'absolute') return rule.match(posix);
  return roots.some((root) => isInside(root, abs) && abs !== root && rule.match(posixRel(root, abs)));
}

/**
 * Whether a path rule names a protected location explicitly: one of its glob's segments is the
 * protected directory or file itself (`write_file(.keen/commands/**)` names `.keen`,
 * `write_file(**)` names nothing).
 */
export function namesExplicitly(rule: Rule, protectedSegment: string): boolean {
  if (rule.kind !== 'path') return false;
  return rule.glob.toLowerCase().split('/').includes(protectedSegment.toLowerCase());
}
