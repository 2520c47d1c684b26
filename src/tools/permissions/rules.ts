import path from 'node:path';
import { KeenError } from '../../errors.js';
import { compileGlob } from '../glob-match.js';
import type { PermissionRequest } from '../types.js';
import { accessOf, bashCommandOf, FILE_READ_TOOLS, FILE_WRITE_TOOLS, isInside, posixRel } from './request.js';

/**
 * Permission rules: one syntax for every tool, used by `permissions.allow` / `ask` / `deny`, by
 * `--allowed-tools` / `--disallowed-tools` and by what the REPL remembers for a session.
 *
 * - `write_file`, `bash`, `mcp__github`, `mcp__github__create_issue`: a bare tool name matches
 *   every call of that tool; `mcp__server` matches every tool of that MCP server, and a `*` in the
 *   name is a glob over tool names (`mcp__github__*`).
 * - `bash(npm test)`: exactly that command. `bash(git status:*)`: that command or it followed by
 *   arguments; `bash(git status*)`: any command starting with `git status`. An allow rule never
 *   matches a command holding shell control characters (`;` `&` `|` `` ` `` `$(` `<` `>` newline);
 *   ask and deny rules match when any part of a compound command matches.
 * - `read_file(GLOB)`, `edit_file(GLOB)`, `write_file(GLOB)`, `glob(GLOB)`, `grep(GLOB)`,
 *   `list_dir(GLOB)`: path rules. Globs (picomatch, dotfiles included) are relative to the
 *   workspace (and each `--add-dir`), or absolute (`/etc/**`), or home-relative (`~/.ssh/**`). A
 *   glob without `/` matches a file name at any depth (`.env`, `*.pem`). `read_file(…)` covers
 *   every reading file tool (read_file, grep, glob, list_dir) and `edit_file(…)` every writing one
 *   (edit_file, write_file). Rules see real paths: symlinks and `..` are resolved first.
 * - `web_fetch(domain:example.com)`: that host and its subdomains.
 */
export type Rule =
  | { text: string; tool: string; kind: 'tool' }
  | { text: string; tool: 'bash'; kind: 'exact'; command: string }
  | { text: string; tool: 'bash'; kind: 'prefix'; prefix: string; wordBoundary: boolean }
  | { text: string; tool: string; kind: 'path'; glob: string; base: 'workspace' | 'absolute'; match: (p: string) => boolean }
  | { text: string; tool: string; kind: 'domain'; domain: string };

export const PATH_RULE_TOOLS = new Set(['read_file', 'write_file', 'edit_file', 'glob', 'grep', 'list_dir']);

const SHELL_CONTROL = /[;&|`<>\n\r]|\$\(/;
const SPLIT_CONTROL = /;|&&|\|\||\||&|\n|\r|\$\(|`|\)/;

/**
 * Parse one rule. Throws a KeenError naming the rule when it is malformed; `home` expands `~/`.
 */
export function parseRule(entry: string, home: string): Rule {
  const text = entry.trim();
  const m = /^([A-Za-z_*][A-Za-z0-9_*-]*)(?:\((.*)\))?$/s.exec(text);
  if (!m) {
    throw new KeenError(`invalid permission rule "${entry}": use a tool name ("write_file"), "bash(<command>)" or "<file tool>(<glob>)"`);
  }
  const tool = m[1];
  const spec = m[2]?.trim();
  if (spec === undefined) return { text, tool, kind: 'tool' };
  if (spec === '' || spec === '*' || spec === '**') return { text, tool, kind: 'tool' };
  if (tool === 'bash') {
    if (spec.endsWith(':*')) return { text, tool, kind: 'prefix', prefix: spec.slice(0, -2).trimEnd(), wordBoundary: true };
    if (spec.endsWith('*')) return { text, tool, kind: 'prefix', prefix: spec.slice(0, -1), wordBoundary: false };
    return { text, tool, kind: 'exact', command: spec };
  }
  if (tool === 'web_fetch') {
    // `domain:*.example.com` is accepted as a synonym: a domain rule covers its subdomains anyway.
    const d = /^domain:(?:\*\.)?([A-Za-z0-9.-]+)$/.exec(spec);
    if (!d) {
      const host = /^[A-Za-z0-9.-]+$/.test(spec) ? spec : 'docs.python.org';
      throw new KeenError(`invalid permission rule "${entry}": web_fetch takes "domain:<host>", e.g. "web_fetch(domain:${host})"`);
    }
    return { text, tool, kind: 'domain', domain: d[1].toLowerCase() };
  }
  if (!PATH_RULE_TOOLS.has(tool)) {
    throw new KeenError(`invalid permission rule "${entry}": only bash (a command), the file tools (a path glob) and web_fetch (a domain) take a pattern; use "${tool}"`);
  }
  let glob = spec;
  let base: 'workspace' | 'absolute' = 'workspace';
  if (glob === '~' || glob.startsWith('~/')) {
    glob = path.posix.join(home.split(path.sep).join('/'), glob.slice(1));
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
  // `mcp__server` covers every `mcp__server__tool`.
  return /^mcp__[^_]+(?:_[^_]+)*$/.test(ruleTool) && !ruleTool.slice(5).includes('__') && tool.startsWith(`${ruleTool}__`);
}

function commandMatches(rule: Extract<Rule, { tool: 'bash' }>, command: string): boolean {
  if (rule.kind === 'exact') return command === rule.command;
  if (!command.startsWith(rule.prefix)) return false;
  if (!rule.wordBoundary) return true;
  const next = command.charAt(rule.prefix.length);
  return next === '' || /\s/.test(next);
}

/**
 * Does `rule` cover `request`? `how` is `every` for allow rules (all paths must match, a compound
 * command never matches a prefix) and `some` for ask and deny rules (any path, any sub-command).
 * `roots` are the real workspace roots, relative globs are matched against each.
 */
export function ruleMatches(rule: Rule, request: PermissionRequest, roots: readonly string[], how: 'every' | 'some'): boolean {
  if (rule.kind === 'tool') return toolMatches(rule.tool, request.tool);
  if (rule.kind === 'exact' || rule.kind === 'prefix') {
    if (request.tool !== 'bash') return false;
    const command = bashCommandOf(request);
    if (how === 'every') {
      if (rule.kind === 'prefix' && SHELL_CONTROL.test(command)) return false;
      return commandMatches(rule, command);
    }
    const parts = [
      command,
      ...command
        .split(SPLIT_CONTROL)
        .map((p) => p.trim())
        .filter((p) => p !== ''),
    ];
    return parts.some((p) => commandMatches(rule, p));
  }
  if (rule.kind === 'domain') {
    const host = request.domain?.toLowerCase();
    return toolMatches(rule.tool, request.tool) && host !== undefined && (host === rule.domain || host.endsWith(`.${rule.domain}`));
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
  const posix = abs.split(path.sep).join('/');
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
