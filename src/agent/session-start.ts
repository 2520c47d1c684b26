/**
 * The last step of a session open: AppState over the history read (or none), with the session's
 * system prompt (a resumed one's, or written at its first turn) and the turn's wait for git and
 * MCP, and the controller that writes its records through `sink`, knowing the compactions already
 * stored.
 */
import type { ResolvedModel } from '../config/resolve.js';
import type { KeenConfig } from '../config/schema.js';
import type { ChatClient } from '../loop/tool-loop.js';
import type { ModeHolder } from '../project/agent-mode.js';
import type { GitStatusCache } from '../project/git-status.js';
import type { ProjectContextSource } from '../project/project-context.js';
import { removedSection, systemPromptSections } from '../project/system-prompt.js';
import type { McpManager } from '../tools/mcp/manager.js';
import type { SessionHooks } from '../hooks/session-hooks.js';
import type { ToolRegistry } from '../tools/types.js';
import { buildConversation } from '../transcript/projection.js';
import { type AppCompaction, AppState } from './app-state.js';
import { promptStateFromRecords } from './prompt-state.js';
import type { SessionFlags } from './flags.js';
import { SessionController, type TranscriptSink } from './session-controller.js';
import { compactionsKnown, type StoredSession } from './session-resume.js';

export interface StartParts {
  client: ChatClient;
  registry: ToolRegistry;
  resolved: ResolvedModel;
  config: KeenConfig;
  compaction: AppCompaction;
  sessionId: string;
  mode: ModeHolder;
  context: ProjectContextSource;
  git: GitStatusCache;
  mcp?: McpManager;
  /** The resumed session (absent: a new one, no history). */
  stored?: StoredSession;
  sink: TranscriptSink;
  hooks?: SessionHooks;
}

/** AppState and its controller, ready for the first turn. */
export function startController(at: { cwd: string; flags: SessionFlags }, parts: StartParts): SessionController {
  const { git, mcp, mode, context, resolved, stored } = parts;
  const appState = new AppState({
    client: parts.client,
    registry: parts.registry,
    // Before each turn: a fresh git status (waited for briefly), and the MCP servers' start.
    prepareRequest: async (signal) => {
      await Promise.all([git.beforeTurn(signal), mcp?.waitForStartup(signal)]);
    },
    compaction: parts.compaction,
    model: resolved.wireId,
    maxOutputTokens: resolved.info.maxOutputTokens,
    images: resolved.info.images,
    thinkingBudget: parts.config.thinkingBudget,
    sessionId: parts.sessionId,
    buildSystemPrompt: () =>
      systemPromptSections({
        cwd: at.cwd,
        mode: mode.get(),
        context: context.load(),
        subagents: true,
        base: at.flags.systemPrompt,
        append: at.flags.appendSystemPrompt,
        gitStatus: () => git.text(),
      }),
    removedSection,
    // A resumed session goes on with the prompt it was using.
    prompt: stored ? promptStateFromRecords(stored.records) : undefined,
    history: buildConversation(stored?.records ?? []),
  });
  const controller = new SessionController(appState, parts.sink, parts.hooks);
  // Past compactions are listed only from a whole transcript (a partial one starts at the last).
  if (stored) controller.compactions.push(...compactionsKnown(stored.records, stored.partial, stored.shown, appState.toolDefinitions));
  return controller;
}
