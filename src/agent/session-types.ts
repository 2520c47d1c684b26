/**
 * What a session opens with and what it is once open: the types of src/agent/open-session.ts
 * (which re-exports them; the front ends import them from there).
 */
import type { McpServerEntry } from '../config/mcp-schema.js';
import type { KeenConfig } from '../config/schema.js';
import type { ResolvedModel } from '../config/resolve.js';
import type { ModeHolder } from '../project/agent-mode.js';
import type { GitStatusCache } from '../project/git-status.js';
import type { ProjectContext } from '../project/project-context.js';
import type { SlashExpansion } from '../project/slash-expansion.js';
import type { ContextBudget } from '../tokens/context-budget.js';
import type { McpManager } from '../tools/mcp/manager.js';
import type { Policy } from '../tools/permissions/index.js';
import type { ToolRegistry } from '../tools/types.js';
import type { HookEntry } from '../hooks/load-hooks.js';
import type { EditorAccess, PermissionGate } from '../tools/types.js';
import type { SessionRecord } from '../transcript/records.js';
import type { SessionSink } from './deferred-store.js';
import type { SessionFlags } from './flags.js';
import type { SessionController } from './session-controller.js';
import type { SubagentProgress } from './subagent-runner.js';

export interface OpenSessionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  flags: SessionFlags;
  interactive: boolean;
  /** The REPL's asking gate; headless runs get the config/--yolo gate. */
  permissions?: PermissionGate;
  /** An editor's files and terminals (`keen acp`), lent to the tools (src/tools/file-access.ts). */
  editor?: EditorAccess;
  /** The id a new session gets (default: a fresh one); `keen acp` keeps an editor's id across a model switch. */
  newSessionId?: string;
  /** MCP servers an editor passes (`keen acp` session/new): the user's own, but never handed a credential. */
  mcpServers?: Record<string, McpServerEntry>;
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
  /**
   * A stored session is opened to be shown whole (`keen acp` session/load), as the REPL always
   * shows it: `shown` holds the stretch before the last compaction too.
   */
  replay?: boolean;
  /**
   * The prompt's git status, already started for `cwd` (a headless run starts it as soon as its
   * folder is known, while the session's modules load). The session takes it over and closes it;
   * one for another folder is closed and replaced.
   */
  git?: GitStatusCache;
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
  shown: ShownRecords;
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
  /**
   * The parent's tools as the model's calls run them (plan mode, checkpoints), without the
   * artifact store: a REPL `!command` runs here, its output going into a user message.
   */
  userCalls: ToolRegistry;
  /** The hooks the session runs (`/hooks` lists them). */
  hooks: readonly HookEntry[];
  /**
   * Run the Notification hooks (not awaited): `type` is what their matcher sees
   * (`permission_prompt` when the REPL asks a permission question).
   */
  notify(message: string, type: string): void;
  close(): Promise<void>;
}

/** What a resumed REPL replays (LiveSession.shown). */
export interface ShownRecords {
  records: SessionRecord[];
  complete: boolean;
}
