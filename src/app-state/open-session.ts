import { KeenError } from '../errors.js';
import { applyEnvOverrides } from '../config/env-overrides.js';
import { loadConfig } from '../config/load.js';
import { keenHome } from '../config/paths.js';
import { resolveModel, type ResolvedModel } from '../config/resolve.js';
import type { KeenConfig } from '../config/schema.js';
import { computeBudget, DEFAULT_COMPACTION_POLICY, type ContextBudget } from '../llm/core/context-budget.js';
import { ContextMeter } from '../llm/core/token-estimator.js';
import type { ProviderAdapter } from '../llm/core/provider.js';
import { createChatClient } from '../llm/loop.js';
import { buildSystemPrompt } from '../llm/prompts/system-prompt.js';
import { installProxyFromEnv } from '../llm/net/proxy.js';
import { createAdapter } from '../llm/providers/registry.js';
import { latestSession } from '../session/list.js';
import { buildConversation, currentModel } from '../session/projection.js';
import type { SessionRecord } from '../session/records.js';
import { newSessionId } from '../session/paths.js';
import { SessionStore } from '../session/store.js';
import { createDefaultRegistry } from '../tools/index.js';
import { createHeadlessGate } from '../tools/permissions.js';
import type { PermissionGate } from '../tools/types.js';
import { VERSION } from '../version.js';
import { AppState } from './app-state.js';
import { storedCompactions } from './context-report.js';
import { DeferredSessionStore, storeSink, type SessionSink } from './deferred-store.js';
import { SessionController } from './session-controller.js';

export const DEFAULT_MAX_TURNS = 100;

export interface SessionFlags {
  provider?: string;
  model?: string;
  profile?: string;
  yolo?: boolean;
  /** Resume this session id. */
  session?: string;
  /** Resume this directory's latest session. */
  continue?: boolean;
  /** `--max-turns`: beats config `maxTurns`. */
  maxTurns?: number;
  /** `--system-prompt`: replaces the base instructions (environment and project files stay). */
  systemPrompt?: string;
  /** `--append-system-prompt`: added at the end of the system prompt. */
  appendSystemPrompt?: string;
}

export interface OpenSessionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  flags: SessionFlags;
  interactive: boolean;
  /** The REPL's asking gate; headless runs get the config/--yolo gate. */
  permissions?: PermissionGate;
  /**
   * Open to look, not to talk (`keen context`): no credentials are needed, no model is reached and
   * nothing is written (not even a model change).
   */
  inspect?: boolean;
}

/** A running session: AppState + store + controller, ready for turns. */
export interface LiveSession {
  sessionId: string;
  provider: string;
  model: string;
  resolved: ResolvedModel;
  budget: ContextBudget;
  config: KeenConfig;
  home: string;
  controller: SessionController;
  /** A new session's store is deferred: nothing is on disk until the first record. */
  store: SessionSink;
  /** Records on disk when the session was opened (for replay); empty for a new session. */
  records: SessionRecord[];
  /** One-line notices for the user (damaged transcript lines, a disabled policy). */
  warnings: string[];
  close(): Promise<void>;
}

/**
 * Opens a new or stored session. Credentials are checked (the adapter is built) before anything
 * is written, and a new session is created on disk only with its first record (see
 * DeferredSessionStore), so a run that never reaches the model leaves no session behind; an
 * unknown id or a locked session is a one-line KeenError.
 */
export async function openSession(opts: OpenSessionOptions): Promise<LiveSession> {
  const home = keenHome(opts.env);
  const config = applyEnvOverrides(loadConfig(home, opts.cwd), opts.env);
  const warnings: string[] = [];
  let resumeId = opts.flags.session;
  if (!resumeId && opts.flags.continue) {
    const latest = await latestSession(home, opts.cwd);
    if (!latest) throw new KeenError('no session to continue in this directory; start one with `keen run "…"` or `keen`');
    resumeId = latest.id;
  }

  let store: SessionSink | undefined;
  let records: SessionRecord[] = [];
  try {
    let stored: { provider: string; model: string } | undefined;
    if (resumeId) {
      const opened = await SessionStore.open(home, opts.cwd, resumeId, { env: opts.env, secrets: configSecrets(config, opts.env) });
      store = storeSink(opened.store);
      records = opened.records;
      if (opened.warning) warnings.push(opened.warning);
      stored = currentModel(records);
    }
    const flags = { ...opts.flags };
    if (stored && !flags.provider && !flags.model) {
      flags.provider = stored.provider;
      flags.model = stored.model;
    }
    const resolved = resolveModel(config, flags, opts.env, home);
    await installProxyFromEnv(opts.env);
    const adapter: ProviderAdapter = opts.inspect ? inspectOnlyAdapter(resolved.provider) : await createAdapter(resolved.provider, resolved.settings);
    const budget = computeBudget(
      { contextWindow: resolved.info.contextWindow, maxOutputTokens: resolved.info.maxOutputTokens },
      { ...DEFAULT_COMPACTION_POLICY, ...stripUndefined(config.compaction ?? {}) },
    );
    if (budget.warning) warnings.push(budget.warning);
    const permissions = opts.permissions ?? createHeadlessGate({ yolo: !!opts.flags.yolo, allow: config.permissions?.allow ?? [] });
    const secrets = [...configSecrets(config, opts.env), ...(resolved.settings.apiKey ? [resolved.settings.apiKey] : [])];
    if (!store) {
      store = new DeferredSessionStore(newSessionId(), (id) =>
        SessionStore.create(home, { id, cwd: opts.cwd, provider: resolved.provider, model: resolved.name, keenVersion: VERSION, env: opts.env, secrets }),
      );
    } else if (!opts.inspect && stored && (stored.provider !== resolved.provider || stored.model !== resolved.name)) {
      await store.append({ kind: 'model_changed', provider: resolved.provider, model: resolved.name });
    }
    const client = createChatClient(adapter, {
      cwd: opts.cwd,
      permissions,
      budget,
      newGauge: () => new ContextMeter(),
      maxTurns: opts.flags.maxTurns ?? config.maxTurns ?? DEFAULT_MAX_TURNS,
    });
    const appState = new AppState({
      client,
      registry: createDefaultRegistry(),
      model: resolved.wireId,
      maxOutputTokens: resolved.info.maxOutputTokens,
      thinkingBudget: config.thinkingBudget,
      sessionId: store.id,
      buildSystemPrompt: () => buildSystemPrompt({ cwd: opts.cwd, base: opts.flags.systemPrompt, append: opts.flags.appendSystemPrompt }),
      history: buildConversation(records),
    });
    const liveStore = store;
    const controller = new SessionController(appState, liveStore);
    controller.compactions.push(...storedCompactions(records, appState.toolDefinitions));
    return {
      sessionId: store.id,
      provider: resolved.provider,
      model: resolved.name,
      resolved,
      budget,
      config,
      home,
      controller,
      store: liveStore,
      records,
      warnings,
      close: () => liveStore.close(),
    };
  } catch (err) {
    await store?.close().catch(() => undefined);
    throw err;
  }
}

/** The adapter of a session opened for inspection: it refuses to talk to a model. */
function inspectOnlyAdapter(id: string): ProviderAdapter {
  return {
    id,
    open: () => Promise.reject(new KeenError('this session was opened to inspect it; no model can be reached from here')),
  };
}

/** Values of the variables that config names as holding keys: redacted from transcripts too. */
function configSecrets(config: KeenConfig, env: NodeJS.ProcessEnv): string[] {
  const names = [...Object.values(config.models ?? {}), ...Object.values(config.providers ?? {})].map((e) => e?.apiKeyEnv);
  return names.flatMap((n) => (n && env[n] ? [env[n] as string] : []));
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
