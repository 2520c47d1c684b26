/**
 * The models a session talks to: its own (the flags', else the resumed session's last) and a
 * subagent's, each resolved, given an adapter (credentials checked) and a context budget. The
 * summariser (`compaction.model`) is resolved in compaction-setup.ts.
 */
import type { ResolvedModel } from '../config/resolve.js';
import { resolveModel } from '../config/resolve.js';
import type { KeenConfig } from '../config/schema.js';
import type { ProviderAdapter } from '../core/provider.js';
import { createChatClient } from '../loop/tool-loop.js';
import { createAdapter } from '../providers/registry.js';
import { computeBudget, DEFAULT_COMPACTION_POLICY, type ContextBudget } from '../tokens/context-budget.js';
import type { SessionFlags } from './flags.js';
import type { ChildModel } from './subagent-runner.js';
import { inspectOnlyAdapter, stripUndefined } from './session-wiring.js';

/** A model's context budget under the configured compaction policy. */
export function modelBudget(resolved: ResolvedModel, config: KeenConfig): ContextBudget {
  return computeBudget(
    { contextWindow: resolved.info.contextWindow, maxOutputTokens: resolved.info.maxOutputTokens },
    { ...DEFAULT_COMPACTION_POLICY, ...stripUndefined(config.compaction ?? {}) },
  );
}

export interface SessionModel {
  resolved: ResolvedModel;
  adapter: ProviderAdapter;
  budget: ContextBudget;
}

/**
 * The session's model: the flags', or (neither `--provider` nor `--model` given) the one the
 * resumed session last used. The proxy is installed before the adapter is built; a session opened
 * to inspect gets an adapter that refuses to talk. A budget warning joins `warnings`.
 */
export async function sessionModel(
  at: { flags: SessionFlags; env: NodeJS.ProcessEnv; home: string; inspect?: boolean; onWarning?: (line: string) => void },
  config: KeenConfig,
  stored: { provider: string; model: string } | undefined,
  warnings: string[],
): Promise<SessionModel> {
  const flags = { ...at.flags };
  if (stored && !flags.provider && !flags.model) {
    flags.provider = stored.provider;
    flags.model = stored.model;
  }
  const resolved = resolveModel(config, flags, at.env, at.home);
  if (resolved.warning && at.flags.provider) warnings.push(resolved.warning);
  const settings = at.onWarning ? { ...resolved.settings, onWarning: at.onWarning } : resolved.settings;
  const adapter = at.inspect ? inspectOnlyAdapter(resolved.provider) : await createAdapter(resolved.provider, settings);
  const budget = modelBudget(resolved, config);
  if (budget.warning) warnings.push(budget.warning);
  return { resolved, adapter, budget };
}

/** A subagent's own model (its definition's `model`): resolved and checked like the parent's. */
export async function childModel(
  config: KeenConfig,
  name: string,
  env: NodeJS.ProcessEnv,
  home: string,
  loopEnv: (budget: ContextBudget) => Parameters<typeof createChatClient>[1],
): Promise<ChildModel> {
  const resolved = resolveModel(config, { model: name }, env, home);
  const adapter = await createAdapter(resolved.provider, resolved.settings);
  return {
    client: createChatClient(adapter, loopEnv(modelBudget(resolved, config))),
    name: resolved.name,
    wireId: resolved.wireId,
    maxOutputTokens: resolved.info.maxOutputTokens,
    thinkingBudget: config.thinkingBudget,
  };
}

/**
 * The model a subagent gets: the parent's when its definition names none or the parent's own
 * name, else `make(name)`, resolved once per name for the session.
 */
export function subagentModels(parent: ChildModel, make: (name: string) => Promise<ChildModel>): (name?: string) => Promise<ChildModel> {
  const children = new Map<string, Promise<ChildModel>>();
  return (name) => {
    if (!name || name === parent.name) return Promise.resolve(parent);
    let child = children.get(name);
    if (!child) {
      child = make(name);
      children.set(name, child);
    }
    return child;
  };
}
