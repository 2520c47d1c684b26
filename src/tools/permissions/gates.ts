import type { PermissionGate, PermissionRequest, ToolContext, ToolOutcome } from '../types.js';
import type { ToolCall } from '../../core/message.js';
import { askRulesMatching, decide, type Decision, type Policy } from './decide.js';
import type { PermissionMode } from './modes.js';
import { buildPolicy, type PolicyInput } from './policy.js';
import { bashCommandOf } from './request.js';
import { parseRule } from './rules.js';
import { ruleFor } from './session-rule.js';

/** A gate that can word its own refusal, and says which policy it applies. */
export interface ExplainingGate extends PermissionGate {
  denialMessage?(request: PermissionRequest): string;
  /** The live policy (the REPL changes its mode and rules). */
  readonly policy?: Policy;
}

function example(request: PermissionRequest): string {
  if (request.tool === 'web_fetch' && request.domain) return `"web_fetch(domain:${request.domain})"`;
  if (request.tool !== 'bash') return `"${request.tool}"`;
  const command = bashCommandOf(request);
  return command.includes('\n') || command.length > 80 ? '"bash(<command>)"' : `"bash(${command})"`;
}

/** The refusal's advice when a rule matched only in doubt: why, and what to write instead. */
const unknownRun = (why: string) =>
  `What the command runs is only known when it runs (${why}), so it may be what the rule names. Write the commands with literal words if they are not.`;

/** The one-line refusal a headless run sends the model. */
export function refusal(request: PermissionRequest, decision: Decision, headless: boolean): string {
  const r = decision.reason;
  switch (r.kind) {
    case 'deny-rule':
      return (
        `Permission denied: ${request.tool} is blocked by the rule "${r.rule}" (${r.source === 'cli' ? '--disallowed-tools' : `${r.source} config permissions.deny`}). ` +
        (r.unknown ? unknownRun(r.unknown) : 'Do not retry it.')
      );
    case 'outside-write':
      return `Permission denied: ${r.path} is outside the workspace; only files inside it (or an --add-dir directory) can be changed.`;
    case 'protected':
      return (
        `Permission denied: ${r.path} is protected (${r.segment} changes what Keen or git runs), so writing it always needs approval. ` +
        `Allow it explicitly in your own config, e.g. "${request.tool}(${r.segment}/**)".`
      );
    case 'ask-rule':
      return `Permission denied: ${request.tool} matches the ask rule "${r.rule}", so it needs approval, which a headless run cannot give. ${r.unknown ? unknownRun(r.unknown) : 'Do not retry it.'}`;
    case 'outside-read':
      return (
        `Permission denied: ${r.path} is outside the workspace (or a credential folder) and reading it needs approval` +
        (headless ? `. Run with --add-dir DIR or allow it with a rule such as "read_file(${r.path.split('\\').join('/')})".` : '.')
      );
    case 'hook':
      return `Permission denied: a PreToolUse hook asks for approval of this ${request.tool} call${r.reason ? ` (${r.reason})` : ''}, which a headless run cannot give. Do not retry it.`;
    default:
      return `Permission denied: ${request.tool} needs approval. ` + `Run with --yolo or allow it in config (permissions.allow), e.g. ${example(request)}.`;
  }
}

function withPolicy(input: PolicyInput | Policy): Policy {
  return 'sensitive' in input ? input : buildPolicy(input);
}

/**
 * The gate for headless runs: `ask` decisions are denied (nobody can answer). Throws a KeenError
 * for a malformed rule.
 */
export function createHeadlessGate(input: PolicyInput | Policy): ExplainingGate {
  const policy = withPolicy(input);
  const last = new WeakMap<PermissionRequest, Decision>();
  return {
    policy,
    additionalDirs: policy.additionalDirs,
    async check(request) {
      const decision = decide(request, policy);
      last.set(request, decision);
      return decision.verdict === 'allow' ? 'allow' : 'deny';
    },
    denialMessage: (request) => refusal(request, last.get(request) ?? decide(request, policy), true),
  };
}

export type SessionAnswer = 'once' | 'session' | 'deny';

export interface SessionGate extends ExplainingGate {
  readonly policy: Policy;
  /** Rules approved "for this session" so far. */
  sessionRules(): string[];
  /** Switch the mode (Shift+Tab, /permissions). */
  setMode(mode: PermissionMode): void;
}

/**
 * The gate for the REPL: `allow` runs, `deny` is refused with its reason, `ask` asks the user.
 * "session" remembers the rule `ruleFor` gives (the tool, the exact bash command, or the path of
 * a protected or outside file); when an ask rule asked, that ask rule stops asking about what the
 * remembered rule covers. Questions are asked one at a time; a throwing `ask` denies.
 */
export function createSessionGate(ask: (request: PermissionRequest) => Promise<SessionAnswer>, input: PolicyInput | Policy = {}): SessionGate {
  const policy = withPolicy(input);
  const remembered: string[] = [];
  const refused = new WeakMap<PermissionRequest, string>();
  let queue: Promise<unknown> = Promise.resolve();

  return {
    policy,
    additionalDirs: policy.additionalDirs,
    check(request) {
      const decision = queue.then(async () => {
        const d = decide(request, policy);
        if (d.verdict === 'allow') return 'allow' as const;
        if (d.verdict === 'deny') {
          refused.set(request, refusal(request, d, false));
          return 'deny' as const;
        }
        let answer: SessionAnswer;
        try {
          answer = await ask(request);
        } catch {
          answer = 'deny';
        }
        if (answer === 'deny') return 'deny' as const;
        if (answer === 'session') {
          const rule = ruleFor(request);
          const parsed = parseRule(rule, policy.home);
          // The answer also settles the ask rules that asked, for what it allows (an ask rule
          // still beats config allows, but the user's own answer is not asked again).
          const answered = askRulesMatching(request, policy).map((e) => ({ ask: e.rule.text, allow: parsed }));
          if (answered.length) policy.answered = [...(policy.answered ?? []), ...answered];
          policy.allow.push({ rule: parsed, source: 'session' });
          remembered.push(rule);
        }
        return 'allow' as const;
      });
      queue = decision.catch(() => undefined);
      return decision;
    },
    denialMessage: (request) => refused.get(request) ?? `Permission denied: the user declined this ${request.tool} call. Do not retry it unchanged; ask the user how to proceed.`,
    sessionRules: () => [...remembered],
    setMode(mode) {
      policy.mode = mode;
    },
  };
}

/** What `authorize` needs of a tool (the registry's `Tool`, without importing it). */
export interface AuthorizedTool {
  readonly name: string;
  readonly mutating: boolean;
  describe?(args: any, ctx: ToolContext): PermissionRequest | Promise<PermissionRequest>;
}

/**
 * Ask `ctx.permissions` about a call. Returns the error outcome to report, or null when the call
 * may run. A `describe` that throws refuses the call before anyone is asked.
 */
export async function authorize(tool: AuthorizedTool, args: unknown, ctx: ToolContext, call?: ToolCall): Promise<ToolOutcome | null> {
  const described: PermissionRequest = tool.describe ? await tool.describe(args, ctx) : { tool: tool.name, summary: tool.name, access: tool.mutating ? 'exec' : 'read' };
  const request: PermissionRequest = { ...described, cwd: described.cwd ?? ctx.cwd, ...(call ? { call } : {}) };
  const decision = await ctx.permissions.check(request);
  if (decision === 'allow') return null;
  const gate = ctx.permissions as ExplainingGate;
  const content = typeof gate.denialMessage === 'function' ? gate.denialMessage(request) : refusal(request, { verdict: 'deny', reason: { kind: 'needs-approval' } }, true);
  return { content, is_error: true };
}
