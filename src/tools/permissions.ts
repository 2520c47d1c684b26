import { KeenError } from '../errors.js';
import type { PermissionGate, PermissionRequest, ToolContext, ToolOutcome } from './types.js';

/**
 * Permission rules (`permissions.allow` in config, and what the REPL remembers for a session).
 *
 * Syntax, one string per rule:
 * - `"write_file"`, `"edit_file"`, `"bash"`: a bare tool name allows every call of that tool.
 * - `"bash(npm test)"`: allows exactly that command (surrounding whitespace ignored).
 * - `"bash(git status*)"`: a trailing `*` allows any command starting with `git status`. A prefix
 *   rule never matches a command holding shell control characters (`;` `&` `|` `` ` `` `$(` `<`
 *   `>` or a newline), so `git status; rm -rf ~` is not allowed by it.
 *
 * - `"mcp__server__tool"`: one MCP tool; `"mcp__server"`: every tool of that MCP server.
 * - `"web_fetch(domain:example.com)"`: fetches from that host; `domain:*.example.com` also
 *   allows its subdomains.
 *
 * Convention: for `bash`, `PermissionRequest.detail` holds the full command text; for
 * `web_fetch`, `PermissionRequest.domain` holds the URL's host name.
 */
export type AllowRule =
  | { tool: string; kind: 'any' }
  | { tool: 'bash'; kind: 'exact'; command: string }
  | { tool: 'bash'; kind: 'prefix'; prefix: string }
  | { tool: 'web_fetch'; kind: 'domain'; domain: string };

/** Tools that ask before running. */
export const MUTATING_TOOLS = ['write_file', 'edit_file', 'bash'] as const;

const SHELL_CONTROL = /[;&|`<>\n\r]|\$\(/;

/** Parse one `permissions.allow` entry. Throws a KeenError naming the entry when malformed. */
export function parseAllowRule(entry: string): AllowRule {
  const text = entry.trim();
  const m = /^([A-Za-z_][A-Za-z0-9_-]*)(?:\((.*)\))?$/s.exec(text);
  if (!m) {
    throw new KeenError(
      `Invalid permissions.allow entry "${entry}": use a tool name ("write_file") or "bash(<command>)" with an optional trailing *.`,
    );
  }
  const tool = m[1];
  const pattern = m[2];
  if (pattern === undefined) return { tool, kind: 'any' };
  if (tool === 'web_fetch') {
    const dm = /^\s*domain:\s*((?:\*\.)?[A-Za-z0-9.-]+)\s*$/.exec(pattern);
    if (!dm) throw new KeenError(`Invalid permissions.allow entry "${entry}": use "web_fetch(domain:example.com)".`);
    return { tool, kind: 'domain', domain: dm[1].toLowerCase() };
  }
  if (tool !== 'bash') {
    throw new KeenError(`Invalid permissions.allow entry "${entry}": only bash takes a command pattern; use "${tool}".`);
  }
  const command = pattern.trim();
  if (command === '' || command === '*') return { tool, kind: 'any' };
  if (command.endsWith('*')) return { tool, kind: 'prefix', prefix: command.slice(0, -1) };
  return { tool, kind: 'exact', command };
}

/** The command a bash permission request is about (see the `detail` convention above). */
export function bashCommandOf(request: PermissionRequest): string {
  return (request.detail ?? '').trim();
}

export function ruleMatches(rule: AllowRule, request: PermissionRequest): boolean {
  if (rule.kind === 'any' && isMcpServerRule(rule.tool) && request.tool.startsWith(`${rule.tool}__`)) return true;
  if (rule.tool !== request.tool) return false;
  if (rule.kind === 'any') return true;
  if (rule.kind === 'domain') return domainMatches(rule.domain, request.domain);
  const command = bashCommandOf(request);
  if (rule.kind === 'exact') return command === rule.command;
  return command.startsWith(rule.prefix) && !SHELL_CONTROL.test(command);
}

/** `mcp__server` (no tool part): a rule for every tool of one MCP server. */
function isMcpServerRule(name: string): boolean {
  return name.startsWith('mcp__') && name.length > 5 && !name.slice(5).includes('__');
}

/** `example.com` matches that host only; `*.example.com` matches it and its subdomains. */
function domainMatches(rule: string, host: string | undefined): boolean {
  if (!host) return false;
  const h = host.toLowerCase();
  if (rule.startsWith('*.')) return h === rule.slice(2) || h.endsWith(rule.slice(1));
  return h === rule;
}

/** The rule that would allow exactly this request, in `permissions.allow` syntax. */
export function ruleFor(request: PermissionRequest): string {
  if (request.tool === 'web_fetch' && request.domain) return `web_fetch(domain:${request.domain})`;
  return request.tool === 'bash' ? `bash(${bashCommandOf(request)})` : request.tool;
}

/** A gate that can word its own refusal (the REPL's "the user declined"). */
export interface ExplainingGate extends PermissionGate {
  denialMessage?(request: PermissionRequest): string;
}

function headlessDenial(request: PermissionRequest): string {
  const example = request.tool === 'bash' ? `"${bashExample(bashCommandOf(request))}"` : `"${ruleFor(request)}"`;
  return (
    `Permission denied: ${request.tool} needs approval. ` +
    `Run with --yolo or allow it in config (permissions.allow), e.g. ${example}.`
  );
}

/**
 * The gate for headless runs: `yolo` allows everything; otherwise a request is allowed only when
 * an `allow` rule matches it (syntax on `AllowRule`). Throws a KeenError for a malformed rule.
 */
export function createHeadlessGate(options: { yolo: boolean; allow: string[] }): ExplainingGate {
  const rules = options.allow.map(parseAllowRule);
  return {
    async check(request) {
      if (options.yolo) return 'allow';
      return rules.some((r) => ruleMatches(r, request)) ? 'allow' : 'deny';
    },
    denialMessage: headlessDenial,
  };
}

export type SessionAnswer = 'once' | 'session' | 'deny';

export interface SessionGate extends ExplainingGate {
  /** Rules approved "for this session" so far, in `permissions.allow` syntax. */
  sessionRules(): string[];
}

/**
 * The gate for the REPL: a request matching `options.allow` or an earlier "session" answer runs
 * without asking; otherwise `ask` decides. "session" remembers the tool (write_file, edit_file)
 * or, for bash, the exact command. Questions are asked one at a time; a throwing `ask` denies.
 */
export function createSessionGate(
  ask: (request: PermissionRequest) => Promise<SessionAnswer>,
  options: { allow?: string[] } = {},
): SessionGate {
  const rules = (options.allow ?? []).map(parseAllowRule);
  const remembered: string[] = [];
  let queue: Promise<unknown> = Promise.resolve();

  const allowedWithoutAsking = (request: PermissionRequest) => rules.some((r) => ruleMatches(r, request));

  return {
    check(request) {
      const decision = queue.then(async () => {
        if (allowedWithoutAsking(request)) return 'allow' as const;
        let answer: SessionAnswer;
        try {
          answer = await ask(request);
        } catch {
          answer = 'deny';
        }
        if (answer === 'deny') return 'deny' as const;
        if (answer === 'session') {
          const rule = ruleFor(request);
          rules.push(parseAllowRule(rule));
          remembered.push(rule);
        }
        return 'allow' as const;
      });
      queue = decision.catch(() => undefined);
      return decision;
    },
    denialMessage: (request) =>
      `Permission denied: the user declined this ${request.tool} call. Do not retry it unchanged; ask the user how to proceed.`,
    sessionRules: () => [...remembered],
  };
}

/** What `authorize` needs of a tool (a `Tool` from registry.ts fits; no import, so no cycle). */
export interface GatedTool {
  readonly name: string;
  describe?(args: any, ctx: ToolContext): PermissionRequest | Promise<PermissionRequest>;
}

/**
 * Ask `ctx.permissions` about a mutating call. Returns the error outcome to report, or null when
 * the call may run. A `describe` that throws refuses the call before anyone is asked.
 */
export async function authorize(tool: GatedTool, args: unknown, ctx: ToolContext): Promise<ToolOutcome | null> {
  const request: PermissionRequest = tool.describe
    ? await tool.describe(args, ctx)
    : { tool: tool.name, summary: tool.name };
  const decision = await ctx.permissions.check(request);
  if (decision === 'allow') return null;
  const gate = ctx.permissions as ExplainingGate;
  const content = typeof gate.denialMessage === 'function' ? gate.denialMessage(request) : headlessDenial(request);
  return { content, is_error: true };
}

function bashExample(command: string): string {
  return command.includes('\n') || command.length > 80 ? 'bash(<command>)' : `bash(${command})`;
}
