import type { PermissionRequest } from '../types.js';
import type { PermissionMode } from './modes.js';
import { protectedSegment } from './protected-paths.js';
import { accessOf, bashCommandOf, isInside } from './request.js';
import type { KnownTools } from './tool-names.js';
import { bashRulesCovering, matchesOnlyInDoubt, namesExplicitly, ruleMatches, type Rule } from './rules.js';

/** Where a rule came from: only `user`, `cli` and `session` rules can unlock protected paths. */
export type RuleSource = 'user' | 'project' | 'cli' | 'session';

export interface RuleEntry {
  rule: Rule;
  source: RuleSource;
}

/** Everything a permission decision depends on. Built by `buildPolicy`; never changed by a call. */
export interface Policy {
  mode: PermissionMode;
  allow: RuleEntry[];
  ask: RuleEntry[];
  deny: RuleEntry[];
  /** Real directories that extend the workspace for reads and writes. */
  additionalDirs: string[];
  /** Real paths whose reads ask even inside the workspace (credential folders, KEEN_HOME). */
  sensitive: string[];
  /** Project-config allow rules count only in a trusted project (see docs/permissions.md). */
  projectTrusted: boolean;
  home: string;
  /**
   * The user's "for this session" answers to calls an ask rule asked about: the ask rule's text
   * and the rule the answer allowed (`ruleFor`). That ask rule no longer asks about calls the
   * answered rule covers; other ask rules, and other calls, still ask.
   */
  answered?: { ask: string; allow: Rule }[];
  /** The tools rules may name (built-ins and the configured MCP servers): /permissions checks against it. */
  known?: KnownTools;
}

export type Reason =
  /** `unknown`: the rule matched only in doubt, and why what the line runs is unknown. */
  | { kind: 'deny-rule'; rule: string; source: RuleSource; unknown?: string }
  | { kind: 'ask-rule'; rule: string; unknown?: string }
  | { kind: 'allow-rule'; rule: string }
  | { kind: 'outside-write'; path: string }
  | { kind: 'outside-read'; path: string }
  | { kind: 'protected'; path: string; segment: string }
  | { kind: 'mode'; mode: PermissionMode }
  | { kind: 'hook'; verdict: 'allow' | 'ask'; reason?: string }
  | { kind: 'needs-approval' };

export interface Decision {
  verdict: 'allow' | 'ask' | 'deny';
  reason: Reason;
}

/** The real workspace roots of a request: its cwd and every additional directory. */
export function rootsOf(request: PermissionRequest, policy: Policy): string[] {
  return [...(request.cwd ? [request.cwd] : []), ...policy.additionalDirs];
}

function counts(entry: RuleEntry, policy: Policy): boolean {
  return entry.source !== 'project' || policy.projectTrusted;
}

/** The ask rules that match `request` (any sub-command of a compound command counts). */
export function askRulesMatching(request: PermissionRequest, policy: Policy): RuleEntry[] {
  const roots = rootsOf(request, policy);
  return policy.ask.filter((e) => ruleMatches(e.rule, request, roots, 'some'));
}

function answeredFor(entry: RuleEntry, request: PermissionRequest, policy: Policy, roots: string[]): boolean {
  return (policy.answered ?? []).some((a) => a.ask === entry.rule.text && ruleMatches(a.allow, request, roots, 'every'));
}

/** `{ unknown: why }` when a bash rule matched only because what the line runs is unknown. */
const doubt = (rule: Rule, request: PermissionRequest) => {
  const why = matchesOnlyInDoubt(rule, request);
  return why ? { unknown: why } : {};
};

/**
 * The allow rule (or, for a bash line of several commands, the rules) that allow `request`:
 * one rule that covers it, or bash rules that each cover some commands of the line and
 * together all of them.
 */
function allowingRule(request: PermissionRequest, policy: Policy, roots: string[]): string | undefined {
  const counted = policy.allow.filter((e) => counts(e, policy));
  const one = counted.find((e) => ruleMatches(e.rule, request, roots, 'every'));
  if (one) return one.rule.text;
  if (request.tool !== 'bash') return undefined;
  const rules = bashRulesCovering(
    counted.map((e) => e.rule),
    bashCommandOf(request),
  );
  return rules?.map((r) => r.text).join(', ');
}

/**
 * The permission decision for one call, a pure function. Order:
 * 1. a deny rule matches → deny (beats everything, `--yolo` included);
 * 2. a write outside the workspace → deny;
 * (plan mode is not decided here: the plan-mode registry refuses mutating calls before the gate
 * is asked, and otherwise `plan` decides as `default` does; src/tools/plan-mode-registry.ts);
 * 2a. a PreToolUse hook answered `ask` → ask;
 * 3. a write to a protected path → ask, unless a user/cli/session rule names it explicitly;
 * 4. an ask rule matches → ask, unless the user answered "for this session" to that rule for
 *    a call the answered rule covers (`Policy.answered`);
 * 4a. a PreToolUse hook answered `allow` → allow (it skips the question, not the rules above);
 * 5. an allow rule matches (project rules only in a trusted project; a bash line when every
 *    command in it matches an allow rule) → allow;
 * 6. bypassPermissions → allow;
 * 7. reads inside the workspace (and not of a credential folder) → allow, other reads → ask;
 * 8. acceptEdits and a write inside the workspace → allow;
 * 9. anything else asks.
 */
export function decide(request: PermissionRequest, policy: Policy): Decision {
  const roots = rootsOf(request, policy);
  const access = accessOf(request);
  const paths = request.paths ?? [];

  const denied = policy.deny.find((e) => ruleMatches(e.rule, request, roots, 'some'));
  if (denied) return { verdict: 'deny', reason: { kind: 'deny-rule', rule: denied.rule.text, source: denied.source, ...doubt(denied.rule, request) } };

  const inside = (p: string) => roots.some((root) => isInside(root, p));
  if (access === 'write' && roots.length > 0) {
    const out = paths.find((p) => !inside(p));
    if (out) return { verdict: 'deny', reason: { kind: 'outside-write', path: out } };
  }

  if (request.hook?.verdict === 'ask') return { verdict: 'ask', reason: { kind: 'hook', ...request.hook } };

  if (access === 'write') {
    for (const p of paths) {
      const segment = protectedSegment(p, roots);
      if (!segment) continue;
      const unlocked = policy.allow.some((e) => e.source !== 'project' && namesExplicitly(e.rule, segment) && ruleMatches(e.rule, { ...request, paths: [p] }, roots, 'every'));
      if (!unlocked) return { verdict: 'ask', reason: { kind: 'protected', path: p, segment } };
    }
  }

  const asked = askRulesMatching(request, policy).find((e) => !answeredFor(e, request, policy, roots));
  if (asked) return { verdict: 'ask', reason: { kind: 'ask-rule', rule: asked.rule.text, ...doubt(asked.rule, request) } };

  if (request.hook?.verdict === 'allow') return { verdict: 'allow', reason: { kind: 'hook', ...request.hook } };

  const allowed = allowingRule(request, policy, roots);
  if (allowed) return { verdict: 'allow', reason: { kind: 'allow-rule', rule: allowed } };

  if (policy.mode === 'bypassPermissions') return { verdict: 'allow', reason: { kind: 'mode', mode: policy.mode } };

  if (access === 'read') {
    const sensitive = (p: string) => policy.sensitive.some((s) => isInside(s, p));
    const out = paths.find((p) => !inside(p) || sensitive(p));
    if (out) return { verdict: 'ask', reason: { kind: 'outside-read', path: out } };
    return { verdict: 'allow', reason: { kind: 'mode', mode: policy.mode } };
  }
  if (access === 'write' && policy.mode === 'acceptEdits' && paths.length > 0) {
    return { verdict: 'allow', reason: { kind: 'mode', mode: policy.mode } };
  }
  return { verdict: 'ask', reason: { kind: 'needs-approval' } };
}
