/** Permission rules, modes and gates: one engine (`decide`) behind every gate. */
export { decide, rootsOf, type Decision, type Policy, type Reason, type RuleEntry, type RuleSource } from './decide.js';
export { authorize, createHeadlessGate, createSessionGate, refusal, ruleFor, type ExplainingGate, type SessionAnswer, type SessionGate } from './gates.js';
export { nextMode, parseMode, PERMISSION_MODES, type PermissionMode } from './modes.js';
export { buildPolicy, splitRuleList, type PermissionsConfig, type PolicyInput } from './policy.js';
export { credentialPaths, protectedSegment, PROTECTED_DIRS, PROTECTED_FILES } from './protected-paths.js';
export { accessOf, FILE_READ_TOOLS, FILE_WRITE_TOOLS, isInside, type Access } from './request.js';
export { bashCommandOf, parseRule, ruleMatches, type Rule } from './rules.js';

/** Tools that ask before running in the default mode. */
export const MUTATING_TOOLS = ['write_file', 'edit_file', 'bash'] as const;
