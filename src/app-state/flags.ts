/**
 * The command-line flags of a session, one set of types for `keen`, `keen run`, the REPL and the
 * subcommands (the CLI parses them, app-state opens sessions with them, the REPL passes them on).
 */

/** Options shared by every command that talks to a model. */
export interface ModelFlags {
  provider?: string;
  model?: string;
  profile?: string;
  yolo?: boolean;
  /** `--trust`: trust this folder's project config and remember it (src/config/trust.ts). */
  trust?: boolean;
  mode?: 'plan' | 'build';
  /** `--mcp-config FILE` (repeatable). */
  mcpConfig?: string[];
  permissionMode?: string;
  allowedTools?: string[];
  disallowedTools?: string[];
  addDir?: string[];
}

export interface RunFlags extends ModelFlags {
  outputFormat?: 'text' | 'json' | 'stream-json';
  /** `--format`: the old name of `--output-format`. */
  format?: 'text' | 'json' | 'stream-json';
  inputFormat?: 'text' | 'stream-json';
  session?: string;
  /** `-r/--resume [id]`: an id, or `true` for "let me pick". */
  resume?: string | true;
  continue?: boolean;
  print?: boolean;
  maxTurns?: number;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  cwd?: string;
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
