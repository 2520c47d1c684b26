/**
 * The command-line flags of a session, one set of types for `keen`, `keen run`, the REPL and the
 * subcommands (the CLI parses them, agent/ opens sessions with them, the REPL passes them on).
 */

/** Options shared by every command that talks to a model. */
export interface ModelFlags {
  provider?: string;
  model?: string;
  profile?: string;
  /** `--yolo`: an alias of `--permission-mode bypassPermissions` (it implies trust for the run). */
  yolo?: boolean;
  /** `--trust`: trust this folder's project config and remember it (src/config/trust.ts). */
  trust?: boolean;
  /** `--mode`: the agent mode to start in (default build). */
  mode?: 'plan' | 'build';
  /** `--mcp-config FILE` (repeatable): MCP servers for this run. */
  mcpConfig?: string[];
  /** `--permission-mode`, `--allowed-tools`, `--disallowed-tools`, `--add-dir` (docs/permissions.md). */
  permissionMode?: string;
  allowedTools?: string[];
  disallowedTools?: string[];
  addDir?: string[];
}

/**
 * What a session opens with (agent/open-session.ts): the model flags, which session to
 * resume, and how to shape the run. The one options type every entry point hands over.
 */
export interface SessionFlags extends ModelFlags {
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

/** `keen run`, `keen -p` and the program itself: the session flags plus output and input. */
export interface RunFlags extends SessionFlags {
  outputFormat?: 'text' | 'json' | 'stream-json';
  /** `--format`: the old name of `--output-format`. */
  format?: 'text' | 'json' | 'stream-json';
  inputFormat?: 'text' | 'stream-json';
  /** `-r/--resume [id]`: an id, or `true` for "let me pick". */
  resume?: string | true;
  print?: boolean;
  cwd?: string;
  /** `--image PATH` (repeatable): images attached to a headless run's message. */
  image?: string[];
}

/** Options of `keen mcp`. */
export interface McpCommandFlags {
  transport?: string;
  env: string[];
  header: string[];
  mcpConfig: string[];
  yolo?: boolean;
  trust?: boolean;
}

/** `keen` (the REPL): the run flags plus the session to reopen and a first message. */
export interface ReplFlags extends RunFlags {
  resume?: string;
  initialPrompt?: string;
}

/**
 * The session flags of a command's flags (output formats, `-C`, the picker's `resume: true` and
 * the first message are not the session's business). Keeps every new session flag without a
 * hand-written copy list, which is how flags used to get lost between the CLI and the REPL.
 */
export function sessionFlagsOf(flags: RunFlags & { initialPrompt?: string }): SessionFlags {
  const { outputFormat: _o, format: _f, inputFormat: _i, resume: _r, print: _p, cwd: _c, initialPrompt: _m, image: _img, ...session } = flags;
  return session;
}

/** The flags every session the REPL reopens keeps: all but which session and which model. */
export function keptFlags(flags: SessionFlags): SessionFlags {
  const { session: _s, continue: _c, provider: _p, model: _m, ...kept } = flags;
  return kept;
}
