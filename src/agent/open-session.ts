import { KeenError } from '../errors.js';
import { applyEnvOverrides } from '../config/env-overrides.js';
import { assertWritableBelow } from '../config/home-writable.js';
import { loadConfig } from '../config/load.js';
import { keenHome } from '../config/paths.js';
import { resolveModel, type ResolvedModel } from '../config/resolve.js';
import { resolveTrust } from '../config/trust.js';
import type { KeenConfig } from '../config/schema.js';
import { computeBudget, DEFAULT_COMPACTION_POLICY, type ContextBudget } from '../tokens/context-budget.js';
import { ContextMeter } from '../tokens/token-estimator.js';
import type { ProviderAdapter } from '../core/provider.js';
import { createChatClient } from '../loop/tool-loop.js';
import { installProxyFromEnv } from '../net/http-fetch.js';
import { createAdapter } from '../providers/registry.js';
import type { ModeHolder } from '../project/agent-mode.js';
import { projectContextSource, type ProjectContext } from '../project/project-context.js';
import { expandSlash, looksLikeSlash, type SlashExpansion } from '../project/slash-expansion.js';
import { GitStatusCache } from '../project/git-status.js';
import { buildSystemPrompt } from '../project/system-prompt.js';
import { redactText, secretValues } from '../transcript/redact.js';
import { setMaxRetryWait } from '../net/retry-fetch.js';
import { emptyUsage } from '../core/usage.js';
import { interruptedToolResults } from '../transcript/interrupted.js';
import { latestSession } from '../transcript/list.js';
import { buildConversation } from '../transcript/projection.js';
import type { SessionRecord } from '../transcript/records.js';
import type { ToolDefinition } from '../core/provider.js';
import { newSessionId, sessionDir, transcriptPath } from '../transcript/paths.js';
import { SessionStore } from '../transcript/store.js';
import { createRememberTool, createSkillTool, createTaskTool, defaultTools, mutatingCalls, planModeHolder, planModeRegistry, readOnlyToolSet } from '../tools/index.js';
import type { McpManager } from '../tools/mcp/manager.js';
import { createToolRegistry, type Tool } from '../tools/registry.js';
import { createHeadlessGate, type Policy } from '../tools/permissions/index.js';
import type { PermissionGate } from '../tools/types.js';
import { checkpointsDir } from '../undo/undo-turns.js';
import { withCheckpoints } from '../undo/checkpointing-registry.js';
import { FileCheckpoints } from '../undo/file-checkpoints.js';
import { VERSION } from '../version.js';
import { AppState } from './app-state.js';
import { compactionSettings, compactionWiring, resolveSummariser, sessionArtifacts } from './compaction-setup.js';
import { storedCompactions } from './context-report.js';
import { DeferredSessionStore, storeSink, type SessionSink } from './deferred-store.js';
import { SessionController, type CompactionNote } from './session-controller.js';
import { bashToolOptions, childModel, configSecrets, inspectOnlyAdapter, permissionPolicy, startMcp, stripUndefined } from './session-wiring.js';
import { createSubagentRunner, type ChildModel, type SubagentProgress } from './subagent-runner.js';

export const DEFAULT_MAX_TURNS = 100;

/**
 * How much of a long transcript before its last compaction a resumed REPL reads to replay: the
 * REPL shows the newest items of a replay anyway, and a 100 MB transcript must open fast.
 */
export const SHOWN_BUDGET = { maxRecords: 3000, maxBytes: 8 << 20 };

export type { SessionFlags } from './flags.js';
import type { SessionFlags } from './flags.js';

export interface OpenSessionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  flags: SessionFlags;
  interactive: boolean;
  /** The REPL's asking gate; headless runs get the config/--yolo gate. */
  permissions?: PermissionGate;
  /** Progress of running subagents (the REPL's nested task card), keyed by the task call id. */
  onSubagentProgress?: (callId: string, progress: SubagentProgress) => void;
  /** The tail of a running bash call's output (the REPL's live card), keyed by the call id. */
  onToolOutput?: (callId: string, tail: string) => void;
  /**
   * Where MCP warnings that arrive after the session opened go (a server that failed late or
   * crashed). Default: stderr for headless runs; the REPL passes its own.
   */
  onWarning?: (line: string) => void;
  /**
   * Open to look, not to talk (`keen context`): no credentials are needed, no model is reached and
   * nothing is written (not even a model change).
   */
  inspect?: boolean;
  /**
   * The first turn's input was read before the open (a one-shot `keen run`): that turn may use
   * the open's project-context read (CONTEXT_FRESH_MS). Anyone else's first turn reads afresh.
   */
  firstInputKnown?: boolean;
}

/** A running session: AppState + store + controller, ready for turns. */
export interface LiveSession {
  sessionId: string;
  provider: string;
  model: string;
  resolved: ResolvedModel;
  budget: ContextBudget;
  config: KeenConfig;
  /** Whether the project folder is trusted: its permission rules (and later MCP servers, hooks) count. */
  projectTrusted: boolean;
  home: string;
  controller: SessionController;
  /** A new session's store is deferred: nothing is on disk until the first record. */
  store: SessionSink;
  /**
   * Records on disk when the session was opened; empty for a new session. All of them for
   * `keen context`; for a run or the REPL possibly only those from the last compaction's batch on
   * (what the next request needs; `buildConversation(records)` is the history either way).
   */
  records: SessionRecord[];
  /**
   * What a resumed REPL replays: `records` and, when those start at the last compaction, up to
   * SHOWN_BUDGET of the records before it (`complete` false when more were left out). Empty for
   * headless runs.
   */
  shown: { records: SessionRecord[]; complete: boolean };
  /** The permission policy of the run (the REPL's gate applies it). */
  policy: Policy;
  /** One-line notices for the user (damaged transcript lines, a disabled policy). */
  warnings: string[];
  /** The agent mode: read for every turn's system prompt and every tool call. */
  mode: ModeHolder;
  /**
   * Instructions, memory, skills, commands and agents, read fresh from disk (the session open's
   * read serves the first call when it comes at once and the input was known before the open:
   * `firstInputKnown`, CONTEXT_FRESH_MS).
   */
  loadContext(): ProjectContext;
  /** `/<command> args` or `/<skill> args` as the text to send; `none` for anything else. */
  expandSlash(input: string): SlashExpansion;
  /** The session's MCP servers, when any are configured. */
  mcp?: McpManager;
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
  const projectTrusted = resolveTrust(home, opts.cwd, { trustFlag: opts.flags.trust, yolo: opts.flags.yolo });
  const loaded = loadConfig(home, opts.cwd, { projectTrusted });
  const config = applyEnvOverrides(loaded.config, opts.env);
  setMaxRetryWait(config.maxRetryWait === undefined ? undefined : config.maxRetryWait * 1000);
  const warnings: string[] = loaded.notice ? [loaded.notice] : [];
  // Each config file was read and validated once, by loadConfig; the wiring takes it from there.
  const policy = permissionPolicy(home, opts, projectTrusted, loaded.files);
  // "No sandbox" is said once, when bash first runs (a run without bash says nothing).
  const lateWarning = opts.onWarning ?? ((line: string) => (opts.interactive ? undefined : process.stderr.write(`keen: warning: ${line}\n`)));
  const bashOptions = { ...bashToolOptions(config, home, projectTrusted, loaded.files), onNotice: lateWarning, onOutput: opts.onToolOutput };
  let resumeId = opts.flags.session;
  if (!resumeId && opts.flags.continue) {
    const latest = await latestSession(home, opts.cwd);
    if (!latest) throw new KeenError('no session to continue in this directory; start one with `keen run "…"` or `keen`');
    resumeId = latest.id;
  }

  // The prompt's git status runs in a child process while the rest starts (never blocking a turn).
  const git = new GitStatusCache(opts.cwd);
  git.refresh();
  let store: SessionSink | undefined;
  let records: SessionRecord[] = [];
  let partial = false;
  let shown: LiveSession['shown'] = { records: [], complete: true };
  let mcp: McpManager | undefined;
  try {
    let stored: { provider: string; model: string } | undefined;
    if (resumeId) {
      // Continuing needs only what the next request needs (from the last compaction on); the REPL
      // reads a bounded stretch before it to replay (below); `keen context` lists every compaction.
      const read = opts.inspect ? 'full' : 'tail';
      const opened = await SessionStore.open(home, opts.cwd, resumeId, { env: opts.env, secrets: configSecrets(config, opts.env), read });
      store = storeSink(opened.store);
      records = opened.records;
      partial = opened.partial;
      if (opened.warning) warnings.push(opened.warning);
      stored = opened.model;
      // A tool call that was running when Keen died gets its result now: an error saying so.
      const dangling = interruptedToolResults(buildConversation(records));
      if (dangling) {
        records.push(await store.append({ kind: 'assistant_turn', text: '', tools: dangling.tools, usage: emptyUsage(), messages: dangling.messages }));
        warnings.push(`session ${resumeId}: ${dangling.messages.length} tool call(s) were interrupted when Keen stopped; recorded them as interrupted`);
      }
      if (opts.interactive) {
        const read = await opened.shown(SHOWN_BUDGET);
        shown = { records: read.records, complete: read.complete };
        if (read.damaged > 0) {
          warnings.push(
            `session ${resumeId}: ${read.damaged} damaged ${read.damaged === 1 ? 'line' : 'lines'} before the last compaction ${read.damaged === 1 ? 'was' : 'were'} skipped in the replay (the history since the compaction is whole)`,
          );
        }
      }
    }
    const flags = { ...opts.flags };
    if (stored && !flags.provider && !flags.model) {
      flags.provider = stored.provider;
      flags.model = stored.model;
    }
    const resolved = resolveModel(config, flags, opts.env, home);
    installProxyFromEnv(opts.env);
    const adapter: ProviderAdapter = opts.inspect ? inspectOnlyAdapter(resolved.provider) : await createAdapter(resolved.provider, resolved.settings);
    const budget = computeBudget(
      { contextWindow: resolved.info.contextWindow, maxOutputTokens: resolved.info.maxOutputTokens },
      { ...DEFAULT_COMPACTION_POLICY, ...stripUndefined(config.compaction ?? {}) },
    );
    if (budget.warning) warnings.push(budget.warning);
    const permissions = opts.permissions ?? createHeadlessGate(policy);
    const secrets = [...configSecrets(config, opts.env), ...(resolved.settings.apiKey ? [resolved.settings.apiKey] : [])];
    // What the session redacts (the environment's secret-looking values and these), found once.
    const sessionSecrets = secretValues(opts.env, secrets);
    // Before a new session exists: a bad compaction.model must not leave an empty session behind.
    const summariser = await resolveSummariser(config, resolved, opts.env, home, opts.cwd, permissions);
    if (!store) {
      const id = newSessionId();
      if (!opts.inspect) assertWritableBelow(home, sessionDir(home, opts.cwd, id));
      store = new DeferredSessionStore(
        id,
        sessionDir(home, opts.cwd, id),
        transcriptPath(home, opts.cwd, id),
        (sid) => SessionStore.create(home, { id: sid, cwd: opts.cwd, provider: resolved.provider, model: resolved.name, keenVersion: VERSION, env: opts.env, secrets }),
        (text) => redactText(text, sessionSecrets),
      );
    } else if (!opts.inspect && stored && (stored.provider !== resolved.provider || stored.model !== resolved.name)) {
      await store.append({ kind: 'model_changed', provider: resolved.provider, model: resolved.name });
    }
    mcp = opts.inspect ? undefined : await startMcp(opts, home, config, warnings, projectTrusted, loaded.declaresMcpServers, loaded.files);
    // File checkpoints for undo: a turn starts when its user message is on disk.
    const checkpoints = new FileCheckpoints(checkpointsDir(store.dir));
    const liveStoreForTurns = store;
    const sink = {
      append: async (record: Parameters<SessionSink['append']>[0]) => {
        const written = await liveStoreForTurns.append(record);
        if (written.kind === 'user_message') checkpoints.beginTurn(written.seq);
        return written;
      },
      appendBatch: (records: Parameters<SessionSink['appendBatch']>[0]) => liveStoreForTurns.appendBatch(records),
      redactText: (text: string) => liveStoreForTurns.redactText(text),
    };
    const compaction = compactionWiring(compactionSettings(config), budget, summariser);
    const artifacts = await sessionArtifacts(store.dir, sessionSecrets, { fresh: !store.persisted });
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
    const contextSource = projectContextSource({ cwd: opts.cwd, home, env: opts.env }, { reuseFirst: opts.firstInputKnown });
    let context = contextSource.current();
    warnings.push(...context.warnings);
    const loadContext = () => (context = contextSource.load());
    // A subagent's registry: plan mode when the session is in it, or when its tools are read-only.
    const wrap = (tools: Tool[], readOnly = readOnlyToolSet(tools)) =>
      planModeRegistry(withCheckpoints(createToolRegistry(tools), checkpoints), () => readOnly || mode.get() === 'plan', mutatingCalls(tools));
    const baseTools: Tool[] = [...defaultTools(bashOptions), createRememberTool(() => context.memoryPaths), createSkillTool(() => context.skills)];
    let controller: SessionController | undefined;
    const parentModel: ChildModel = { client, name: resolved.name, wireId: resolved.wireId, maxOutputTokens: resolved.info.maxOutputTokens, thinkingBudget: config.thinkingBudget };
    const childModels = new Map<string, Promise<ChildModel>>();
    const runner = createSubagentRunner({
      agents: () => context.agents,
      tools: () => baseTools,
      registry: wrap,
      systemPrompt: (def, tools) =>
        buildSystemPrompt({
          cwd: opts.cwd,
          mode: mode.get(),
          context: { ...context, skills: tools.some((t) => t.name === 'skill') ? context.skills : [] },
          base: def?.prompt,
          gitStatus: () => git.text(),
        }),
      model: (name) => {
        if (!name || name === resolved.name) return Promise.resolve(parentModel);
        let child = childModels.get(name);
        if (!child) {
          child = childModel(config, name, opts.env, home, loopEnv);
          childModels.set(name, child);
        }
        return child;
      },
      sessionDir: store.dir,
      secrets: sessionSecrets,
      onUsage: (u) => controller?.addSpend(u),
      onProgress: opts.onSubagentProgress,
    });
    // The parent's tools: built-ins, recall, the task tool and (when configured) the MCP servers'
    // current tools; plan mode refuses the mutating ones, MCP tools without readOnlyHint included;
    // every output is stored once as an artifact (the handle a prune leaves).
    const liveMcp = mcp;
    const parentTools = [...baseTools, artifacts.recall, createTaskTool(runner)];
    const parentRegistry = artifacts.wrap(
      planModeRegistry(
        withCheckpoints(liveMcp ? (await import('../tools/mcp/registry.js')).createMcpAwareRegistry(parentTools, liveMcp) : createToolRegistry(parentTools), checkpoints),
        () => mode.get() === 'plan',
        (call) => mutatingCalls(call.name.startsWith('mcp__') && liveMcp ? [...parentTools, ...liveMcp.tools()] : parentTools)(call),
      ),
    );
    const appState = new AppState({
      client,
      registry: parentRegistry,
      // Before each turn: a fresh git status (waited for briefly), and the MCP servers' start.
      prepareRequest: async (signal) => {
        await Promise.all([git.beforeTurn(signal), liveMcp?.waitForStartup(signal)]);
      },
      compaction: compaction.app,
      model: resolved.wireId,
      maxOutputTokens: resolved.info.maxOutputTokens,
      thinkingBudget: config.thinkingBudget,
      sessionId: store.id,
      buildSystemPrompt: () =>
        buildSystemPrompt({
          cwd: opts.cwd,
          mode: mode.get(),
          context: loadContext(),
          subagents: true,
          base: opts.flags.systemPrompt,
          append: opts.flags.appendSystemPrompt,
          gitStatus: () => git.text(),
        }),
      history: buildConversation(records),
    });
    controller = new SessionController(appState, sink);
    // Past compactions are listed only from a whole transcript (a partial one starts at the last).
    controller.compactions.push(...compactionsKnown(records, partial, shown, appState.toolDefinitions));
    const liveStore = store;
    return {
      sessionId: store.id,
      provider: resolved.provider,
      model: resolved.name,
      resolved,
      budget,
      config,
      projectTrusted,
      home,
      controller,
      store: liveStore,
      records,
      shown,
      policy,
      warnings,
      mode,
      loadContext,
      // Only `/name …` can expand: anything else is sent as typed without reading the folders.
      expandSlash: (input) => (looksLikeSlash(input) ? expandSlash(input, loadContext()) : { kind: 'none' }),
      mcp: liveMcp,
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

/**
 * The stored compactions `/context` lists: every one after a whole read; after a partial one (the
 * REPL read its replay backward), those whose history before them was read — from a read that
 * covers the file, all; else the ones after the first compaction in it (which starts the history
 * the later ones are measured on). Headless runs list none.
 */
function compactionsKnown(records: SessionRecord[], partial: boolean, shown: LiveSession['shown'], tools: readonly ToolDefinition[]): CompactionNote[] {
  if (!partial) return storedCompactions(records, tools);
  if (shown.complete) return storedCompactions(shown.records, tools);
  const first = shown.records.findIndex((r) => r.kind === 'compaction_applied');
  return first === -1 ? [] : storedCompactions(shown.records.slice(first), tools).slice(1);
}
