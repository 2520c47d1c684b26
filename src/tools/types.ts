import type { ToolCall, ToolMessage } from '../core/message.js';
import type { ToolDefinition } from '../core/provider.js';

/** The content of the error result for a call whose `ctx.signal` was aborted. */
export const CANCELLED = 'cancelled';

/** The answer to a permission question. */
export type PermissionDecision = 'allow' | 'deny';

export interface PermissionRequest {
  tool: string;
  /** One line: what will happen ("write src/a.ts (12 lines)", "bash: npm test"). */
  summary: string;
  /** Optional detail for a prompt, e.g. a unified diff of an edit. */
  detail?: string;
  /** What the call does; inferred from the tool name when absent (see permissions/request.ts). */
  access?: 'read' | 'write' | 'exec';
  /** Real absolute paths the call reads or writes, resolved (symlinks, `..`) before any rule. */
  paths?: string[];
  /** bash: the full command text. */
  command?: string;
  /** web_fetch: the host the call contacts. */
  domain?: string;
  /** The workspace root of the call; filled in by `authorize` from the tool context. */
  cwd?: string;
  /**
   * A PreToolUse hook's answer (src/hooks/): `allow` skips the question but not a deny or ask
   * rule or a protected path; `ask` asks even where the rules would allow.
   */
  hook?: { verdict: 'allow' | 'ask'; reason?: string };
  /**
   * The call the question is about, as it will run (the registry sets it; a PreToolUse hook's
   * input when one changed it, src/hooks/): a front end shows this, not the model's call, with the
   * question (an editor's rawInput and diff), and names the card by its id.
   */
  call?: ToolCall;
}

/** Decides whether a mutating tool call may run. Headless denies unless allowed; the REPL asks. */
export interface PermissionGate {
  check(request: PermissionRequest): Promise<PermissionDecision>;
  /** Real directories besides the workspace that file tools may read and write (`--add-dir`). */
  readonly additionalDirs?: readonly string[];
}

export interface ToolContext {
  /** The workspace root; writes outside it are refused. */
  cwd: string;
  signal: AbortSignal;
  permissions: PermissionGate;
  /** The id of the call being run (set by the registry; a subagent names its transcript after it). */
  callId?: string;
  /** Plan mode is on (set by the plan-mode registry): bash runs in a read-only sandbox, or not at all. */
  planMode?: boolean;
  /** An editor's file buffers (ACP): read_file, edit_file and write_file go through them (file-access.ts). */
  files?: FileAccess;
  /** An editor's terminals (ACP): bash may run there when `usable` says so (bash.ts). */
  terminal?: TerminalAccess;
  /**
   * A PreToolUse hook changed the call's input: `call` is what runs (the hooks registry reports
   * it, before anything below it sees the call; the tool loop turns it into an event).
   */
  onInputChanged?: (call: ToolCall) => void;
}

/**
 * Where the file tools (read_file, edit_file, write_file) get and put a file's text when an
 * editor offers its own: an ACP client's `fs/read_text_file` / `fs/write_text_file`, so the model
 * reads unsaved buffers and an edit lands in the editor. Absent, or a method absent: the disk.
 *
 * It is only a transport. Every check happens before it is called, as for the disk: the path is
 * resolved to its real location inside the workspace roots, the credential stores are refused,
 * the permission gate (and plan mode, hooks, checkpoints) decided the call. It is used for files
 * inside the workspace roots only; a read elsewhere reads the disk.
 */
export interface FileAccess {
  /** The whole text of the file at the real path `real`, as the editor has it. */
  readText?(real: string, signal: AbortSignal): Promise<string>;
  /** Replace the text of the file at `real` (its folder exists). */
  writeText?(real: string, content: string, signal: AbortSignal): Promise<void>;
}

/** How a client terminal ended. */
export interface TerminalRun {
  output: string;
  /** The client cut the output (its byte limit). */
  truncated: boolean;
  exitCode: number | null;
  signal: string | null;
  ending: 'exit' | 'timeout' | 'cancelled';
}

/**
 * A terminal of the editor's (ACP `terminal/*`) for the bash tool. Only a transport too: bash's
 * rules and plan mode decide before it runs. Keen's sandbox cannot wrap a process the editor
 * starts, so `usable` says whether it may be used under the configured sandbox mode.
 */
export interface TerminalAccess {
  /** Whether bash may run in the editor's terminal when Keen's sandbox for bash is `mode`. */
  usable(mode: string): boolean;
  run(command: string, opts: { cwd: string; env: Record<string, string>; callId?: string; timeoutMs: number; outputByteLimit: number; signal: AbortSignal }): Promise<TerminalRun>;
}

/** What an editor lends the tools. */
export interface EditorAccess {
  files?: FileAccess;
  terminal?: TerminalAccess;
}

/** A tool's outcome. `is_error` results go back to the model as tool errors; the loop goes on. */
export interface ToolOutcome {
  content: string;
  is_error?: boolean;
  /**
   * Images the tool returned (MCP image content). `content` always names each one with a
   * placeholder line, so providers that cannot take images in tool results lose nothing silently.
   */
  images?: ToolImage[];
}

/** A base64 image from a tool result. */
export interface ToolImage {
  mimeType: string;
  data: string;
}

/** A set of tools. `execute` never throws: every failure becomes an error ToolMessage. */
export interface ToolRegistry {
  definitions(): ToolDefinition[];
  execute(call: ToolCall, ctx: ToolContext): Promise<ToolMessage>;
  /** Calls of this tool may run at the same time as neighbouring calls of such tools (read-only tools, `task`). */
  concurrent?(name: string): boolean;
}
