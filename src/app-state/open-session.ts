import { KeenError } from '../errors.js';
import { loadConfig, readConfigFile } from '../config/load.js';
import { keenHome, projectConfigPath, userConfigPath } from '../config/paths.js';
import { resolveModel, type ResolvedModel } from '../config/resolve.js';
import type { KeenConfig } from '../config/schema.js';
import { computeBudget, DEFAULT_COMPACTION_POLICY, type ContextBudget } from '../llm/core/context-budget.js';
import { ContextMeter } from '../llm/core/token-estimator.js';
import { createChatClient } from '../llm/loop.js';
import { buildSystemPrompt } from '../llm/prompts/system-prompt.js';
import { createAdapter } from '../llm/providers/registry.js';
import { latestSession } from '../session/list.js';
import { buildConversation, currentModel } from '../session/projection.js';
import type { SessionRecord } from '../session/records.js';
import { SessionStore } from '../session/store.js';
import type { BashToolOptions } from '../tools/bash.js';
import { createDefaultRegistry } from '../tools/index.js';
import { DEFAULT_SANDBOX, findSandbox } from '../tools/sandbox/index.js';
import { buildPolicy, createHeadlessGate, type Policy } from '../tools/permissions/index.js';
import type { PermissionGate } from '../tools/types.js';
import { checkpointsDir } from '../undo/undo-turns.js';
import { withCheckpoints } from '../undo/checkpointing-registry.js';
import { FileCheckpoints } from '../undo/file-checkpoints.js';
import { VERSION } from '../version.js';
import { AppState } from './app-state.js';
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
  /** `--permission-mode`, `--allowed-tools`, `--disallowed-tools`, `--add-dir` (docs/permissions.md). */
  permissionMode?: string;
  allowedTools?: string[];
  disallowedTools?: string[];
  addDir?: string[];
}

export interface OpenSessionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  flags: SessionFlags;
  interactive: boolean;
  /** The REPL's asking gate; headless runs get the config/--yolo gate. */
  permissions?: PermissionGate;
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
  store: SessionStore;
  /** Records on disk when the session was opened (for replay); empty for a new session. */
  records: SessionRecord[];
  /** The permission policy of the run (the REPL's gate applies it). */
  policy: Policy;
  /** One-line notices for the user (damaged transcript lines, a disabled policy). */
  warnings: string[];
  close(): Promise<void>;
}

/**
 * Opens a new or stored session. Credentials are checked (the adapter is built) before anything
 * is written, so a missing key never leaves an empty session behind; an unknown id or a locked
 * session is a one-line KeenError.
 */
export async function openSession(opts: OpenSessionOptions): Promise<LiveSession> {
  const home = keenHome(opts.env);
  const config = loadConfig(home, opts.cwd);
  const warnings: string[] = [];
  const policy = permissionPolicy(config, home, opts);
  const bashOptions = bashToolOptions(config, home, opts, policy.projectTrusted);
  const sandboxMissing = bashOptions.sandbox?.mode !== 'off' ? findSandbox(process.platform, opts.env).missing : undefined;
  if (sandboxMissing) warnings.push(`no sandbox for bash: ${sandboxMissing}; commands run without one (see docs/permissions.md)`);
  let resumeId = opts.flags.session;
  if (!resumeId && opts.flags.continue) {
    const latest = await latestSession(home, opts.cwd);
    if (!latest) throw new KeenError('no session to continue in this directory; start one with `keen run "…"` or `keen`');
    resumeId = latest.id;
  }

  let store: SessionStore | undefined;
  let records: SessionRecord[] = [];
  try {
    let stored: { provider: string; model: string } | undefined;
    if (resumeId) {
      const opened = await SessionStore.open(home, opts.cwd, resumeId, { env: opts.env, secrets: configSecrets(config, opts.env) });
      store = opened.store;
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
    const adapter = await createAdapter(resolved.provider, resolved.settings);
    const budget = computeBudget(
      { contextWindow: resolved.info.contextWindow, maxOutputTokens: resolved.info.maxOutputTokens },
      { ...DEFAULT_COMPACTION_POLICY, ...stripUndefined(config.compaction ?? {}) },
    );
    if (budget.warning) warnings.push(budget.warning);
    const permissions = opts.permissions ?? createHeadlessGate(policy);
    const secrets = [...configSecrets(config, opts.env), ...(resolved.settings.apiKey ? [resolved.settings.apiKey] : [])];
    if (!store) {
      store = await SessionStore.create(home, { cwd: opts.cwd, provider: resolved.provider, model: resolved.name, keenVersion: VERSION, env: opts.env, secrets });
    } else if (stored && (stored.provider !== resolved.provider || stored.model !== resolved.name)) {
      await store.append({ kind: 'model_changed', provider: resolved.provider, model: resolved.name });
    }
    // File checkpoints for undo: a turn starts when its user message is on disk.
    const checkpoints = new FileCheckpoints(checkpointsDir(store.dir));
    const liveStoreForTurns = store;
    const sink = {
      append: async (record: Parameters<SessionStore['append']>[0]) => {
        const written = await liveStoreForTurns.append(record);
        if (written.kind === 'user_message') checkpoints.beginTurn(written.seq);
        return written;
      },
      appendBatch: (records: Parameters<SessionStore['appendBatch']>[0]) => liveStoreForTurns.appendBatch(records),
    };
    const client = createChatClient(adapter, {
      cwd: opts.cwd,
      permissions,
      budget,
      newGauge: () => new ContextMeter(),
      maxTurns: config.maxTurns ?? DEFAULT_MAX_TURNS,
    });
    const appState = new AppState({
      client,
      registry: withCheckpoints(createDefaultRegistry(bashOptions), checkpoints),
      model: resolved.wireId,
      maxOutputTokens: resolved.info.maxOutputTokens,
      thinkingBudget: config.thinkingBudget,
      sessionId: store.id,
      buildSystemPrompt: () => buildSystemPrompt({ cwd: opts.cwd }),
      history: buildConversation(records),
    });
    const liveStore = store;
    return {
      sessionId: store.id,
      provider: resolved.provider,
      model: resolved.name,
      resolved,
      budget,
      config,
      home,
      controller: new SessionController(appState, sink),
      store: liveStore,
      records,
      policy,
      warnings,
      close: () => liveStore.close(),
    };
  } catch (err) {
    await store?.close().catch(() => undefined);
    throw err;
  }
}

/**
 * The run's permission policy from the user's and the project's config (read apart, since only the
 * user's own rules may unlock protected paths and project allows need trust) and the flags. Trust
 * comes from workspace trust (`config.projectTrusted` once loaded configs carry it); until then a
 * project counts as trusted only with `--yolo`.
 */
function permissionPolicy(config: KeenConfig, home: string, opts: OpenSessionOptions): Policy {
  const user = readConfigFile(userConfigPath(home)).permissions;
  const project = readConfigFile(projectConfigPath(opts.cwd)).permissions;
  const trusted = (config as { projectTrusted?: boolean }).projectTrusted;
  return buildPolicy({
    mode: opts.flags.permissionMode,
    yolo: opts.flags.yolo,
    user,
    project,
    allowedTools: opts.flags.allowedTools,
    disallowedTools: opts.flags.disallowedTools,
    addDirs: opts.flags.addDir,
    projectTrusted: trusted ?? !!opts.flags.yolo,
    cwd: opts.cwd,
    keenHome: home,
  });
}

/**
 * The bash tool's sandbox and environment rules: from the user's config, and from the project's
 * only when it is trusted (a repository must not turn the sandbox off or pass secrets through).
 */
function bashToolOptions(config: KeenConfig, home: string, opts: OpenSessionOptions, trusted: boolean): BashToolOptions {
  const user = readConfigFile(userConfigPath(home));
  const project = trusted ? readConfigFile(projectConfigPath(opts.cwd)) : {};
  const sandbox = { ...DEFAULT_SANDBOX, ...stripUndefined(user.sandbox ?? {}), ...stripUndefined(project.sandbox ?? {}) };
  const names = [...Object.values(config.models ?? {}), ...Object.values(config.providers ?? {})].flatMap((e) => (e?.apiKeyEnv ? [e.apiKeyEnv] : []));
  return {
    sandbox,
    keenHome: home,
    env: { passthrough: [...(user.bash?.envPassthrough ?? []), ...(project.bash?.envPassthrough ?? [])], withhold: names },
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
