/**
 * Opening a session, as a sequence of named steps (each in a file of its own under src/agent/):
 *
 *   readSettings       home, trust, config, permission policy, bash sandbox  session-settings.ts
 *   sessionHooks       the user's and a trusted project's hooks              hook-setup.ts
 *   resumeTarget       `--session` / `--continue`                             session-resume.ts
 *   openStored         a resumed transcript (locked), interrupted calls, replay
 *   sessionModel       model, proxy, adapter (credentials checked), budget    session-model.ts
 *   resolveSummariser  `compaction.model`                                     compaction-setup.ts
 *   sessionStore       a new (deferred) store, or a resumed one's model change session-store.ts
 *   startMcp           the configured MCP servers, in the background          session-wiring.ts
 *   compactionWiring, sessionArtifacts: settings, summariser, artifact store  compaction-setup.ts
 *   sessionRegistry    tools, subagents, the registry layers (buildRegistry)  session-tools.ts
 *   startController    AppState and SessionController over turnSink           session-start.ts
 *   SessionStart       the hooks of that event run once everything is open
 *
 * Credentials are checked (the adapter is built) before anything is written, and a new session is
 * created on disk only with its first record (see DeferredSessionStore).
 */
import { join } from 'node:path';
import { createChatClient } from '../loop/tool-loop.js';
import { TRANSCRIPT_FILE } from '../transcript/paths.js';
import { planModeHolder } from '../tools/index.js';
import { projectContextSource } from '../project/project-context.js';
import { expandSlash, looksLikeSlash } from '../project/slash-expansion.js';
import { GitStatusCache } from '../project/git-status.js';
import { ContextMeter } from '../tokens/token-estimator.js';
import type { ContextBudget } from '../tokens/context-budget.js';
import { addCredentials } from '../security/scrubber.js';
import type { McpManager } from '../tools/mcp/manager.js';
import { createHeadlessGate } from '../tools/permissions/index.js';
import { checkpointsDir } from '../undo/undo-turns.js';
import { FileCheckpoints } from '../undo/file-checkpoints.js';
import { compactionSettings, compactionWiring, resolveSummariser, sessionArtifacts } from './compaction-setup.js';
import type { SessionSink } from './deferred-store.js';
import type { SessionController } from './session-controller.js';
import { startController } from './session-start.js';
import { childModel, sessionModel, subagentModels } from './session-model.js';
import { openStored, resumeTarget } from './session-resume.js';
import { readSettings } from './session-settings.js';
import { sessionStore, turnSink } from './session-store.js';
import { sessionRegistry } from './session-tools.js';
import type { LiveSession, OpenSessionOptions } from './session-types.js';
import { sessionSecrets, startMcp } from './session-wiring.js';
import { sessionHooks } from './hook-setup.js';
import type { ChildModel } from './subagent-runner.js';

export const DEFAULT_MAX_TURNS = 100;

export type { SessionFlags } from './flags.js';
export type { LiveSession, OpenSessionOptions } from './session-types.js';

/**
 * The prompt's git status, run in a child process while the rest starts (never blocking a turn):
 * the one the caller started for this folder (not refreshed: its run is the first turn's), or a
 * new one.
 */
function sessionGitStatus(opts: OpenSessionOptions): GitStatusCache {
  if (opts.git?.cwd === opts.cwd) return opts.git;
  opts.git?.close();
  const git = new GitStatusCache(opts.cwd);
  git.refresh();
  return git;
}

/**
 * Opens a new or stored session (the steps above, in that order). A run that never reaches the
 * model leaves no session behind; an unknown id or a locked session is a one-line KeenError.
 * Whatever was opened before a failure (git, the store, MCP servers) is closed again.
 */
export async function openSession(opts: OpenSessionOptions): Promise<LiveSession> {
  const settings = readSettings(opts);
  const { home, config, policy, warnings } = settings;
  const resumeId = await resumeTarget(opts, home);
  const hooks = opts.inspect ? undefined : sessionHooks(opts, settings);
  const git = sessionGitStatus(opts);
  let store: SessionSink | undefined;
  let mcp: McpManager | undefined;
  try {
    const stored = resumeId ? await openStored(opts, home, config, resumeId, warnings) : undefined;
    store = stored?.store;
    const { resolved, adapter, budget } = await sessionModel({ ...opts, home, onWarning: settings.lateWarning }, config, stored?.model, warnings);
    const permissions = opts.permissions ?? createHeadlessGate(policy);
    const secrets = sessionSecrets(config, opts.env, resolved.settings.apiKey);
    addCredentials(secrets.redacted);
    // Before a new session exists: a bad compaction.model must not leave an empty session behind.
    const summariser = await resolveSummariser(config, resolved, opts.env, home, opts.cwd, permissions);
    store = await sessionStore({ ...opts, home }, resolved, stored, secrets);
    hooks?.bind({ sessionId: store.id, transcriptPath: join(store.dir, TRANSCRIPT_FILE) });
    mcp = opts.inspect ? undefined : await startMcp(opts, home, config, warnings, settings.projectTrusted, settings.declaresMcpServers, settings.files);
    // File checkpoints for undo: a turn starts when its user message is on disk.
    const checkpoints = new FileCheckpoints(checkpointsDir(store.dir));
    const compaction = compactionWiring(compactionSettings(config), budget, summariser, {
      hooks,
      thinking: { budget: config.thinkingBudget, maxOutputTokens: resolved.info.maxOutputTokens },
    });
    const artifacts = await sessionArtifacts(store.dir, secrets.redacted, { fresh: !store.persisted });
    const loopEnv = (b: ContextBudget) => ({
      cwd: opts.cwd,
      permissions,
      budget: b,
      newGauge: () => new ContextMeter(),
      maxTurns: opts.flags.maxTurns ?? config.maxTurns ?? DEFAULT_MAX_TURNS,
      compaction: compaction.loop,
    });
    const client = createChatClient(adapter, loopEnv(budget));

    // Project context: read once now (its warnings shown once), then fresh for every turn (the
    // first turn of a run uses this read when it follows at once: projectContextSource).
    // One plan mode: the agent mode is the policy's (`--mode plan` is `--permission-mode plan`).
    const mode = planModeHolder(policy, opts.flags.mode);
    const context = projectContextSource({ cwd: opts.cwd, home, env: opts.env }, { reuseFirst: opts.firstInputKnown });
    warnings.push(...context.current().warnings);
    const parentModel: ChildModel = { client, name: resolved.name, wireId: resolved.wireId, maxOutputTokens: resolved.info.maxOutputTokens, thinkingBudget: config.thinkingBudget };
    let controller: SessionController | undefined;
    const { registry, userCalls } = await sessionRegistry({
      cwd: opts.cwd,
      bashOptions: settings.bashOptions,
      context,
      mode,
      checkpoints,
      artifacts,
      mcp,
      mcpLimits: { window: budget.window, provider: resolved.provider },
      gitStatus: () => git.text(),
      model: subagentModels(parentModel, (name) => childModel(config, name, opts.env, home, loopEnv)),
      sessionDir: store.dir,
      secrets: secrets.redacted,
      onUsage: (u) => controller?.addSpend(u),
      onProgress: opts.onSubagentProgress,
      hooks,
      editor: opts.editor,
    });
    const liveMcp = mcp;
    controller = startController(opts, {
      client,
      registry,
      resolved,
      config,
      compaction: compaction.app,
      sessionId: store.id,
      mode,
      context,
      git,
      mcp: liveMcp,
      stored,
      sink: turnSink(store, checkpoints),
      hooks,
    });
    if (hooks?.has('SessionStart')) {
      const source = stored ? 'resume' : 'startup';
      const verdict = await hooks.run('SessionStart', source, { source });
      if (verdict.context) controller.carryContext(verdict.context);
    }
    const liveStore = store;
    return {
      sessionId: store.id,
      provider: resolved.provider,
      model: resolved.name,
      resolved,
      budget,
      config,
      projectTrusted: settings.projectTrusted,
      home,
      controller,
      store: liveStore,
      records: stored?.records ?? [],
      shown: stored?.shown ?? { records: [], complete: true },
      policy,
      warnings,
      mode,
      loadContext: () => context.load(),
      // Only `/name …` can expand: anything else is sent as typed without reading the folders.
      expandSlash: (input) => (looksLikeSlash(input) ? expandSlash(input, context.load()) : { kind: 'none' }),
      mcp: liveMcp,
      userCalls,
      hooks: hooks?.entries ?? [],
      notify: (message, type) => {
        if (hooks?.has('Notification')) void hooks.run('Notification', type, { message, notification_type: type });
      },
      close: async () => {
        git.close();
        await liveMcp?.close();
        await liveStore.close();
      },
    };
  } catch (err) {
    git.close();
    await mcp?.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    throw err;
  }
}
