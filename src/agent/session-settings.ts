/**
 * The first step of a session open: where Keen's home is, whether the folder is trusted, the
 * config (each file read and validated once), the permission policy and the bash tool's sandbox.
 * Nothing is written and no model is reached here.
 */
import { applyEnvOverrides } from '../config/env-overrides.js';
import { forStream } from '../security/terminal-text.js';
import { type ConfigFiles, loadConfig } from '../config/load.js';
import { keenHome } from '../config/paths.js';
import type { KeenConfig } from '../config/schema.js';
import { resolveTrust } from '../config/trust.js';
import type { BashToolOptions } from '../tools/bash.js';
import { redactText, secretValues } from '../transcript/redact.js';
import type { Policy } from '../tools/permissions/index.js';
import type { OpenSessionOptions } from './session-types.js';
import { bashToolOptions, permissionPolicy } from './session-wiring.js';

export interface SessionSettings {
  home: string;
  projectTrusted: boolean;
  config: KeenConfig;
  /** The config files as loadConfig read them (the project's unfiltered). */
  files: ConfigFiles;
  /** Whether a config file declares MCP servers. */
  declaresMcpServers: boolean;
  policy: Policy;
  bashOptions: BashToolOptions;
  /** One-line notices gathered while the session opens (later steps add theirs). */
  warnings: string[];
  /** Where a warning raised after the session opened goes (stderr headless, the notice line in the REPL). */
  lateWarning: (line: string) => void;
}

/** Home, trust, config, policy and sandbox for `opts`: the settings every later step reads. */
export function readSettings(opts: OpenSessionOptions): SessionSettings {
  const home = keenHome(opts.env);
  const projectTrusted = resolveTrust(home, opts.cwd, { trustFlag: opts.flags.trust, yolo: opts.flags.yolo });
  const loaded = loadConfig(home, opts.cwd, { projectTrusted });
  const config = applyEnvOverrides(loaded.config, opts.env);
  // Each config file was read and validated once, by loadConfig; the wiring takes it from there.
  const policy = permissionPolicy(home, opts, projectTrusted, loaded.files);
  // "No sandbox" is said once, when bash first runs (a run without bash says nothing).
  // Late lines name paths and text from the repository (a protected link's target): sanitised like every other.
  const lateWarning = opts.onWarning ?? ((line: string) => (opts.interactive ? undefined : process.stderr.write(forStream(process.stderr, `keen: warning: ${line}\n`))));
  return {
    home,
    projectTrusted,
    config,
    files: loaded.files,
    declaresMcpServers: loaded.declaresMcpServers,
    policy,
    bashOptions: { ...bashToolOptions(config, home, projectTrusted, loaded.files), onNotice: lateWarning, onOutput: shownTail(opts) },
    warnings: loaded.notice ? [loaded.notice] : [],
    lateWarning,
  };
}

/**
 * A running command's live tail as a front end may show it: scrubbed of the session's credentials
 * (a command can print a key it read from a file); the tool's result keeps its own copy.
 */
function shownTail(opts: OpenSessionOptions): ((callId: string, tail: string) => void) | undefined {
  const show = opts.onToolOutput;
  if (!show) return undefined;
  const secrets = secretValues(opts.env);
  return (callId, tail) => show(callId, redactText(tail, secrets));
}
