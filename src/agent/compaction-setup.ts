import { KeenError } from '../errors.js';
import { canonicalModelName } from '../config/model-lookup.js';
import { MODEL_CATALOG } from '../config/models.js';
import { resolveModel, type ResolvedModel } from '../config/resolve.js';
import type { KeenConfig } from '../config/schema.js';
import type { LoopCompaction } from '../compaction/auto-compaction.js';
import type { ArtifactSink } from '../compaction/artifact-registry.js';
import { COMPACTION_MAX_TURNS, thinkingReserve } from '../compaction/policy.js';
import { DEFAULT_SETTINGS, type CompactionSettings } from '../compaction/settings.js';
import type { Summariser } from '../compaction/summary-route.js';
import type { SessionHooks } from '../hooks/session-hooks.js';
import { computeBudget, DEFAULT_COMPACTION_POLICY, type ContextBudget } from '../tokens/context-budget.js';
import { ContextMeter } from '../tokens/token-estimator.js';
import { createChatClient } from '../loop/tool-loop.js';
import { createAdapter } from '../providers/registry.js';
import { ArtifactStore } from '../transcript/artifacts.js';
import type { Tool } from '../tools/registry.js';
import { createRecallTool } from '../tools/recall.js';
import type { PermissionGate } from '../tools/types.js';
import type { AppCompaction } from './app-state.js';

/** `compaction.*` from config with the defaults filled in. */
export function compactionSettings(config: KeenConfig): CompactionSettings {
  const c = config.compaction ?? {};
  return {
    keepRecentTokens: c.keepRecentTokens ?? DEFAULT_SETTINGS.keepRecentTokens,
    prune: c.prune ?? DEFAULT_SETTINGS.prune,
    instructions: c.instructions,
  };
}

/**
 * `compaction.model`: a separate summariser, defined like any model (config `models` or the
 * catalog). Naming the session's own model keeps the cache-parity fork. An unknown name is a
 * one-line KeenError naming the key.
 */
export async function resolveSummariser(
  config: KeenConfig,
  main: ResolvedModel,
  env: NodeJS.ProcessEnv,
  home: string,
  cwd: string,
  permissions: PermissionGate,
): Promise<Summariser | undefined> {
  const name = config.compaction?.model;
  if (!name) return undefined;
  // A short name (`haiku`) stands for its catalog model here too.
  if (!config.models?.[name] && !MODEL_CATALOG[canonicalModelName(name, config.models)]) {
    throw new KeenError(`compaction.model "${name}" is not a known model: define it under "models" in config or pick one from the catalog`);
  }
  const resolved = resolveModel(config, { model: name }, env, home);
  if (resolved.provider === main.provider && resolved.wireId === main.wireId && resolved.info.contextWindow === main.info.contextWindow) return undefined;
  const adapter = await createAdapter(resolved.provider, resolved.settings);
  const budget = computeBudget({ contextWindow: resolved.info.contextWindow, maxOutputTokens: resolved.info.maxOutputTokens }, { ...DEFAULT_COMPACTION_POLICY, auto: false });
  const client = createChatClient(adapter, { cwd, permissions, budget, newGauge: () => new ContextMeter(), maxTurns: COMPACTION_MAX_TURNS });
  return { client, model: resolved.wireId, inputBudget: budget.inputBudget, maxOutputTokens: resolved.info.maxOutputTokens };
}

/** The session's artifact store: the `recall` tool that reads it, and the sink every tool output is stored in. */
export interface SessionArtifacts {
  recall: Tool;
  /** Where the registry builder stores each result (the handle pruning replaces it with). */
  sink: ArtifactSink;
}

/** Open the session's artifact store (see {@link SessionArtifacts}). */
export async function sessionArtifacts(sessionDir: string, redacted: readonly string[], opts: { fresh?: boolean } = {}): Promise<SessionArtifacts> {
  // `redacted`: the same values the transcript redacts (`secretValues`: environment values that look secret plus config keys).
  // `fresh`: a new session, whose folder does not exist yet (ArtifactStore.open).
  const artifacts = await ArtifactStore.open(sessionDir, redacted, opts);
  return { recall: createRecallTool((n) => artifacts.get(n)), sink: artifacts };
}

/**
 * The session's `PreCompact` hooks before an automatic compaction, in Claude Code's shape
 * (`trigger: "auto"`, `custom_instructions: ""`): the block reason, if a hook blocked.
 */
export function autoPreCompact(hooks: SessionHooks | undefined): LoopCompaction['beforeCompact'] {
  if (!hooks?.has('PreCompact')) return undefined;
  return async (signal) => (await hooks.run('PreCompact', 'auto', { trigger: 'auto', custom_instructions: '' }, signal)).block;
}

/** What else the wiring reads of the session. */
export interface WiringExtras {
  /** Run before an automatic compaction (trigger `auto`). */
  hooks?: SessionHooks;
  /** The session's thinking budget and output limit: the manual fork carries that thinking too. */
  thinking?: { budget?: number; maxOutputTokens: number };
}

/** What the loop and AppState get: the same settings and summariser on both paths; the loop also the PreCompact hooks. */
export function compactionWiring(
  configured: CompactionSettings,
  budget: ContextBudget,
  summariser: Summariser | undefined,
  extras: WiringExtras = {},
): { loop: LoopCompaction; app: AppCompaction } {
  // The manual fork is the turn's request, thinking included: its budget is room the summary cannot use.
  const reserve = extras.thinking ? thinkingReserve(extras.thinking.budget, extras.thinking.maxOutputTokens) : 0;
  // A tail may take at most a quarter of the input budget, so a compaction always lands well under the threshold.
  const settings = { ...configured, keepRecentTokens: Math.min(configured.keepRecentTokens, Math.floor(budget.inputBudget / 4)) };
  return {
    loop: { settings, summariser, beforeCompact: autoPreCompact(extras.hooks) },
    app: { settings, window: budget.window - reserve, inputBudget: budget.inputBudget, summariser },
  };
}
