/** Permission rules, modes and gates: one engine (`decide`) behind every gate. */
export { decide, type Decision, type Policy, type Reason, type RuleEntry, type RuleSource } from './decide.js';
export { createHeadlessGate, createSessionGate, type ExplainingGate, type SessionAnswer, type SessionGate } from './gates.js';
export { nextMode, parseMode, type PermissionMode } from './modes.js';
export { buildPolicy, type PermissionsConfig, type PolicyInput } from './policy.js';
export type { Access } from './request.js';
export { parseRule, type Rule } from './rules.js';

/** Tools that ask before running in the default mode. */
export const MUTATING_TOOLS = ['write_file', 'edit_file', 'bash'] as const;
