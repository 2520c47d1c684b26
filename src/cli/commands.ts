import { Command, Option } from 'commander';
import { VERSION } from '../version.js';

/** Options shared by every command that talks to a model. */
export interface ModelFlags {
  provider?: string;
  model?: string;
  profile?: string;
  yolo?: boolean;
  mode?: 'plan' | 'build';
  /** `--mcp-config FILE` (repeatable). */
  mcpConfig?: string[];
  permissionMode?: string;
  allowedTools?: string[];
  disallowedTools?: string[];
  addDir?: string[];
  trust?: boolean;
}

export interface RunFlags extends ModelFlags {
  format: 'text' | 'json';
  session?: string;
  continue?: boolean;
  print?: string;
}

function addModelOptions(cmd: Command): Command {
  return cmd
    .option('--provider <provider>', 'provider: anthropic, openai, openai-responses, codex, bedrock, genkit')
    .option('-m, --model <model>', 'model name (catalog or config models.<name>)')
    .option('--profile <profile>', 'AWS profile for Bedrock')
    .option('--yolo', 'alias of --permission-mode bypassPermissions: run every tool call without asking')
    .option('--permission-mode <mode>', 'default, acceptEdits, plan or bypassPermissions')
    .option('--allowed-tools <rules>', 'comma-separated rules allowed for this run (repeatable)', collect, [])
    .option('--disallowed-tools <rules>', 'comma-separated rules denied for this run (repeatable)', collect, [])
    .option('--add-dir <dir>', 'another directory the file tools may read and write (repeatable)', collect, [])
    .addOption(new Option('--mode <mode>', 'agent mode: plan (read and plan only) or build').choices(['plan', 'build']))
    .option('--mcp-config <file>', 'MCP servers for this run, from an .mcp.json-format file (repeatable)', collect, [])
    .option('--trust', "trust this folder's project config (permission rules, MCP servers, sandbox settings) and remember it");
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Options of `keen mcp`. */
export interface McpCommandFlags {
  transport?: string;
  env: string[];
  header: string[];
  mcpConfig: string[];
  yolo?: boolean;
}

/** Parses argv and runs the command. Returns the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  let code = 0;
  const program = new Command('keen')
    .description('A terminal coding agent that compacts its context and never loses your work.')
    .version(VERSION, '-v, --version')
    .argument('[prompt...]', 'a first message to send')
    .option('--resume <id>', 'reopen a stored session')
    .option('-c, --continue', "reopen this directory's latest session")
    .option('-p, --print <message>', 'run headless once and print the answer (same as `keen run`)')
    .addOption(new Option('--format <format>', 'headless output format').choices(['text', 'json']).default('text'))
    .showHelpAfterError('(run `keen --help` for usage)')
    // Subcommands repeat the program's option names (--format, --continue, --yolo, ...); without
    // this, commander hands `keen run --yolo` to the program and `run` never sees it.
    .enablePositionalOptions();
  addModelOptions(program);
  program.action(async (prompt: string[], opts: RunFlags & { resume?: string }) => {
    if (opts.print !== undefined) {
      const { runHeadless } = await import('./run.js');
      code = await runHeadless(opts.print, { ...opts, session: opts.resume ?? opts.session });
      return;
    }
    const { startRepl } = await import('./repl-entry.js');
    code = await startRepl({ ...opts, initialPrompt: prompt.join(' ') || undefined });
  });

  addModelOptions(
    program
      .command('run')
      .description('run one turn headless: tools, compaction and persistence as in the REPL')
      .argument('[message...]', 'the message (read from stdin when omitted)')
      .option('-p, --print <message>', 'the message (alias)')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
      .option('--session <id>', 'continue a stored session')
      .option('-c, --continue', "continue this directory's latest session"),
  ).action(async (message: string[], opts: RunFlags) => {
    const { runHeadless } = await import('./run.js');
    code = await runHeadless(opts.print ?? (message.length ? message.join(' ') : undefined), opts);
  });

  addModelOptions(
    program
      .command('compact')
      .description('compact a stored session now (manual /compact, headless)')
      .argument('[focus...]', 'what the summary must especially keep')
      .option('--session <id>', 'the session to compact')
      .option('-c, --continue', "compact this directory's latest session"),
  ).action(async (focus: string[], opts: RunFlags) => {
    const { runCompactCommand } = await import('./compact.js');
    code = await runCompactCommand(focus.join(' ') || undefined, opts);
  });

  addModelOptions(
    program
      .command('init')
      .description('have the model draft an AGENTS.md for this repository (writes need --yolo or an allow rule)')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text')),
  ).action(async (opts: RunFlags) => {
    const { runInitCommand } = await import('./init.js');
    code = await runInitCommand(opts);
  });

  program
    .command('sessions')
    .description("list this directory's sessions")
    .option('--all', 'list the sessions of every directory')
    .action(async (opts: { all?: boolean }) => {
      const { runSessionsCommand } = await import('./sessions.js');
      code = await runSessionsCommand(opts);
    });

  program
    .command('undo')
    .description('restore the files the last turn (or --turns N) of a session changed')
    .option('--session <id>', "the session (default: this directory's latest)")
    .option('--turns <n>', 'how many turns that changed files to undo', '1')
    .option('--force', 'overwrite files changed outside Keen since')
    .action(async (opts: { session?: string; turns?: string; force?: boolean }) => {
      const { runUndoCommand } = await import('./undo.js');
      code = await runUndoCommand(opts);
    });

  program
    .command('login')
    .description('sign in to a provider that uses an account instead of an API key')
    .argument('<provider>', 'codex')
    .action(async (provider: string) => {
      const { runLoginCommand } = await import('./login.js');
      code = await runLoginCommand(provider);
    });

  program
    .command('mcp')
    .description('list, add and remove MCP servers (user config)')
    .argument('<action>', 'list | add | remove')
    .argument('[args...]', 'add: NAME -- COMMAND [ARGS...] or --transport http|sse NAME URL; remove: NAME')
    .option('--transport <transport>', 'stdio (default), http or sse')
    .option('-e, --env <KEY=VALUE>', 'environment for a stdio server (repeatable)', collect, [])
    .option('-H, --header <Name: value>', 'header for an http or sse server (repeatable)', collect, [])
    .option('--mcp-config <file>', 'list: also the servers of this file (repeatable)', collect, [])
    .option('--yolo', 'list: include the project servers of an untrusted project')
    .action(async (action: string, args: string[], opts: McpCommandFlags) => {
      const { runMcpCommand } = await import('./mcp.js');
      code = await runMcpCommand(action, args, opts);
    });

  await program.parseAsync(argv);
  return code;
}
