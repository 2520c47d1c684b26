import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { KeenError } from '../errors.js';
import type { McpCommandFlags, RunFlags } from '../agent/flags.js';
import { VERSION } from '../version.js';
import { closestCommand, mistypedCommand, type CommandLine } from './mistyped-command.js';
import { SESSIONS_PAGE_SIZE } from './sessions-page.js';

const FORMATS = ['text', 'json', 'stream-json'];

function addModelOptions(cmd: Command): Command {
  return (
    cmd
      .addOption(new Option('--provider <provider>', 'provider: anthropic, openai, openai-responses, codex, bedrock, genkit').env('KEEN_PROVIDER'))
      .addOption(new Option('-m, --model <model>', 'model name (`keen models` lists them)').env('KEEN_MODEL'))
      .option('--profile <profile>', 'AWS profile for Bedrock')
      .option('--yolo', 'alias of --permission-mode bypassPermissions: run every tool call without asking')
      // Claude Code's spelling of --yolo.
      .addOption(new Option('--dangerously-skip-permissions', 'alias of --yolo').implies({ yolo: true }).hideHelp())
      .option('--permission-mode <mode>', 'default, acceptEdits, plan or bypassPermissions')
      .option('--allowed-tools <rules>', 'rules allowed for this run, separated by commas or blanks (repeatable)', collect, [])
      .option('--disallowed-tools <rules>', 'rules denied for this run, separated by commas or blanks (repeatable)', collect, [])
      // Claude Code's spellings, as users paste them: the same lists.
      .addOption(new Option('--allowedTools <rules>', 'alias of --allowed-tools').argParser(collect).hideHelp())
      .addOption(new Option('--disallowedTools <rules>', 'alias of --disallowed-tools').argParser(collect).hideHelp())
      .option('--add-dir <dir>', 'another directory the file tools may read and write (repeatable)', collect, [])
      .addOption(new Option('--mode <mode>', 'agent mode: plan (read and plan only) or build').choices(['plan', 'build']))
      .option('--mcp-config <file>', 'MCP servers for this run, from an .mcp.json-format file (repeatable)', collect, [])
      .option('--trust', "trust this folder's project config (permission rules, MCP servers, sandbox settings) and remember it")
  );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
}

/** Session choice, prompt shaping and working directory: the same on `keen` and `keen run`. */
function addSessionOptions(cmd: Command): Command {
  return cmd
    .option('-r, --resume [id]', 'reopen a stored session (without an id: pick one, in a terminal)')
    .option('-c, --continue', "continue this directory's latest session")
    .addOption(new Option('--session <id>', 'continue a stored session (same as --resume <id>)'))
    .addOption(new Option('--max-turns <n>', 'model requests per turn before stopping (config maxTurns)').argParser(positiveInt))
    .option('--system-prompt <text>', 'replace the base instructions (text, or @FILE)')
    .option('--append-system-prompt <text>', 'add to the end of the system prompt (text, or @FILE)')
    .option('-C, --cwd <dir>', 'run in DIR instead of the current directory');
}

/** Output and input formats of a headless run. */
function addFormatOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--output-format <format>', 'headless output: text, json (one result object) or stream-json (one event per line)').choices(FORMATS))
    .addOption(new Option('--format <format>', 'alias of --output-format').choices(FORMATS).hideHelp())
    .addOption(new Option('--input-format <format>', 'headless input: text, or stream-json (user messages as JSON lines on stdin)').choices(['text', 'stream-json']))
    .option('--image <path>', 'headless: attach an image (PNG, JPEG, GIF or WebP) to the message (repeatable)', collect, []);
}

/**
 * Usage errors of `cmd` are one `keen:` line naming the help of the command at fault, and exit 2
 * (commander's own `error:` prefix and process.exit are replaced).
 */
function usageErrors(cmd: Command, path: string): Command {
  return cmd.exitOverride().configureOutput({
    outputError: (str, write) =>
      write(
        `keen: ${str
          .replace(/^error: /, '')
          .trim()
          .replace(/\s*\n\s*/g, ' ')} (see \`${path} --help\`)\n`,
      ),
  });
}

/**
 * Options given before a subcommand (`keen --yolo run x`, `keen -C dir run x`) belong to it:
 * commander's positional options hand them to the program, so they are copied onto the
 * subcommand (lists joined), or refused with one line when the subcommand has no such option.
 */
function carryGlobalOptions(program: Command, sub: Command): void {
  if (sub === program) return;
  // The options typed come first, so a refusal names `--dangerously-skip-permissions`, not the
  // `--yolo` it implies.
  const source = (o: Option) => program.getOptionValueSource(o.attributeName());
  const typedFirst = [...program.options].sort((a, b) => Number(source(b) === 'cli') - Number(source(a) === 'cli'));
  for (const option of typedFirst) {
    const name = option.attributeName();
    const source = program.getOptionValueSource(name);
    if (source !== 'cli' && source !== 'implied') continue;
    const value = program.getOptionValue(name);
    const target = sub.options.find((o) => o.attributeName() === name);
    if (!target) {
      throw new KeenError(`${option.long ?? option.short} does not apply to \`keen ${sub.name()}\` (see \`keen ${sub.name()} --help\`)`, 2);
    }
    const own = sub.getOptionValue(name);
    if (sub.getOptionValueSource(name) === 'cli') {
      if (Array.isArray(own) && Array.isArray(value)) sub.setOptionValueWithSource(name, [...value, ...own], 'cli');
      continue;
    }
    sub.setOptionValueWithSource(name, value, 'cli');
  }
}

/** A provider from `KEEN_PROVIDER` that is none is a usage error naming the variable. */
async function checkProviderEnv(cmd: Command): Promise<void> {
  if (cmd.getOptionValueSource('provider') !== 'env') return;
  const value = String(cmd.getOptionValue('provider'));
  const { PROVIDER_IDS } = await import('../config/provider-settings.js');
  if ((PROVIDER_IDS as readonly string[]).includes(value)) return;
  throw new KeenError(`unknown provider "${value}" in KEEN_PROVIDER; choose one of ${PROVIDER_IDS.join(', ')}`, 2);
}

/** `--resume` + `--session` + `--continue` as the session flags of open-session. */
function sessionOf(opts: RunFlags): { session?: string; continue?: boolean } {
  const id = typeof opts.resume === 'string' ? opts.resume : opts.session;
  return { session: id, continue: opts.continue };
}

/** Applies `-C` and reads `@FILE` prompt flags; the flags a session opens with. */
async function prepare(opts: RunFlags): Promise<RunFlags> {
  const { enterDirectory, promptFlagText } = await import('./prompt-input.js');
  if (opts.cwd) enterDirectory(opts.cwd);
  return {
    ...opts,
    ...sessionOf(opts),
    systemPrompt: promptFlagText('--system-prompt', opts.systemPrompt, process.cwd()),
    appendSystemPrompt: promptFlagText('--append-system-prompt', opts.appendSystemPrompt, process.cwd()),
  };
}

/**
 * A headless run, its prompt's git status started as soon as its folder is known: its child
 * processes (the config read, the sandbox probe, git) then overlap loading the session's modules
 * instead of delaying the first request. The session takes it over; closed here too (closing
 * twice is harmless), so a run that fails before its session opens leaves no git behind.
 */
async function headless(words: string[], opts: RunFlags): Promise<number> {
  const { GitStatusCache } = await import('../project/git-status.js');
  const git = new GitStatusCache(process.cwd());
  git.refresh();
  try {
    const { runHeadless } = await import('./run.js');
    return await runHeadless(words, opts, git);
  } finally {
    git.close();
  }
}

/** Parses argv and runs the command. Returns the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  let code = 0;
  const program = new Command('keen')
    .description('A terminal coding agent that compacts its context and never loses your work.')
    .version(VERSION, '-v, --version')
    .argument('[prompt...]', 'a first message to send')
    .option('-p, --print', 'run headless: send the prompt (words and piped stdin), print the answer, exit')
    // Subcommands repeat the program's option names (--format, --continue, --yolo, ...); without
    // this, commander hands `keen run --yolo` to the program and `run` never sees it.
    .enablePositionalOptions();
  usageErrors(program, 'keen');
  program.hook('preAction', async (_self, sub) => {
    carryGlobalOptions(program, sub);
    await checkProviderEnv(sub);
  });
  addFormatOptions(addSessionOptions(addModelOptions(program)));
  program.action(async (prompt: string[], raw: RunFlags) => {
    if (raw.print || raw.inputFormat === 'stream-json') {
      if (raw.resume === true) throw new KeenError('a headless run needs --resume <id> (`keen sessions` lists them), or use --continue', 2);
      const opts = await prepare(raw);
      code = await headless(prompt, opts);
      return;
    }
    if (raw.image?.length) throw new KeenError('--image attaches to a headless message (with -p); in the REPL, type @PATH or paste the path', 2);
    const opts = await prepare(raw);
    let initialPrompt = prompt.join(' ') || undefined;
    if (raw.resume === true) {
      if (!process.stdin.isTTY || !process.stdout.isTTY)
        throw new KeenError('--resume without an id opens a picker and needs a terminal; pass an id (`keen sessions` lists them) or use --continue', 2);
      if (initialPrompt) throw new KeenError('--resume without an id opens a picker and takes no first message; pick the session, then type it', 2);
      initialPrompt = '/resume';
    }
    const { startRepl } = await import('./repl-entry.js');
    code = await startRepl({ ...opts, resume: opts.session, initialPrompt });
  });

  const run = program
    .command('run')
    // Codex's name for a headless run.
    .alias('exec')
    .description('run one turn headless: tools, compaction and persistence as in the REPL')
    .argument('[message...]', 'the message (words are joined; piped stdin is added after them)')
    .option('-p, --print', 'accepted for symmetry with `keen -p`');
  usageErrors(run, 'keen run');
  addFormatOptions(addSessionOptions(addModelOptions(run))).action(async (message: string[], raw: RunFlags) => {
    if (raw.resume === true) throw new KeenError('keen run --resume needs an id (`keen sessions` lists them), or use --continue', 2);
    const opts = await prepare(raw);
    code = await headless(message, opts);
  });

  const compact = program
    .command('compact')
    .description('compact a stored session now (manual /compact, headless)')
    .argument('[focus...]', 'what the summary must especially keep')
    .option('--session <id>', 'the session to compact')
    .option('-r, --resume <id>', 'the session to compact (same as --session)')
    .option('-c, --continue', "compact this directory's latest session");
  usageErrors(compact, 'keen compact');
  addModelOptions(compact).action(async (focus: string[], opts: RunFlags) => {
    const { runCompactCommand } = await import('./compact.js');
    code = await runCompactCommand(focus.join(' ') || undefined, { ...opts, ...sessionOf(opts) });
  });

  const init = program
    .command('init')
    .description('have the model draft an AGENTS.md for this repository (writes need --yolo or an allow rule)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'));
  usageErrors(init, 'keen init');
  addModelOptions(init).action(async (opts: RunFlags) => {
    const { runInitCommand } = await import('./init.js');
    code = await runInitCommand(opts);
  });

  const sessions = program
    .command('sessions')
    .description("list this directory's sessions")
    .option('--all', 'list the sessions of every directory')
    .option('--page <n>', `which page of ${SESSIONS_PAGE_SIZE} sessions, newest first`, '1');
  usageErrors(sessions, 'keen sessions').action(async (opts: { all?: boolean; page: string }) => {
    const { runSessionsCommand } = await import('./sessions.js');
    code = await runSessionsCommand(opts);
  });

  const undo = program
    .command('undo')
    .description('restore the files the last turn (or --turns N) of a session changed')
    .option('--session <id>', "the session (default: this directory's latest)")
    .option('--turns <n>', 'how many turns that changed files to undo', '1')
    .option('--force', 'overwrite files changed outside Keen since');
  usageErrors(undo, 'keen undo').action(async (opts: { session?: string; turns?: string; force?: boolean }) => {
    const { runUndoCommand } = await import('./undo.js');
    code = await runUndoCommand(opts);
  });

  const login = program.command('login').description('sign in to a provider that uses an account instead of an API key').argument('<provider>', 'codex');
  usageErrors(login, 'keen login').action(async (provider: string) => {
    const { runLoginCommand } = await import('./login.js');
    code = await runLoginCommand(provider);
  });

  const mcp = program
    .command('mcp')
    .description('list, add and remove MCP servers (user config)')
    .argument('<action>', 'list | add | remove')
    .argument('[args...]', 'add: NAME -- COMMAND [ARGS...] or --transport http|sse NAME URL; remove: NAME')
    .option('--transport <transport>', 'stdio (default), http or sse')
    .option('-e, --env <KEY=VALUE>', 'environment for a stdio server (repeatable)', collect, [])
    .option('-H, --header <Name: value>', 'header for an http or sse server (repeatable)', collect, [])
    .option('--mcp-config <file>', 'list: also the servers of this file (repeatable)', collect, [])
    .option('--yolo', 'list: include the project servers of an untrusted project')
    .option('--trust', 'list: trust this folder (and remember it) to include its project servers');
  usageErrors(mcp, 'keen mcp').action(async (action: string, args: string[], opts: McpCommandFlags) => {
    const { runMcpCommand } = await import('./mcp.js');
    code = await runMcpCommand(action, args, opts);
  });

  const models = program.command('models').description('list the model catalog and configured models: provider, context window, output limit');
  usageErrors(models, 'keen models')
    .addOption(new Option('--output-format <format>', 'text or json').choices(['text', 'json']))
    .option('-C, --cwd <dir>', 'read the project config of DIR')
    .action(async (opts: { outputFormat?: string; cwd?: string }) => {
      const { runModelsCommand } = await import('./models.js');
      code = await runModelsCommand(opts);
    });

  const context = program
    .command('context')
    .description("show where a stored session's context window goes (as /context does)")
    .option('--session <id>', 'the session to show')
    .option('-r, --resume <id>', 'the session to show (same as --session)')
    .option('-c, --continue', "show this directory's latest session")
    .addOption(new Option('--output-format <format>', 'text or json').choices(['text', 'json']))
    .option('-C, --cwd <dir>', 'run in DIR instead of the current directory');
  usageErrors(context, 'keen context');
  addModelOptions(context).action(async (opts: RunFlags) => {
    const { runContextCommand } = await import('./context.js');
    code = await runContextCommand({ ...(await prepare(opts)), ...sessionOf(opts) });
  });

  const exportCommand = program
    .command('export')
    .description('write a stored session as one self-contained HTML page (docs/export.md)')
    .option('--session <id>', 'the session to export')
    .option('-r, --resume <id>', 'the session to export (same as --session)')
    .option('-c, --continue', "export this directory's latest session")
    .option('-o, --output <file>', 'the page to write (default keen-session-<id>.html; - for stdout)')
    .option('-C, --cwd <dir>', 'run in DIR instead of the current directory');
  usageErrors(exportCommand, 'keen export').action(async (opts: RunFlags & { output?: string }) => {
    const { runExportCommand } = await import('./export.js');
    code = await runExportCommand({ ...(await prepare(opts)), ...sessionOf(opts) });
  });

  const acpCommand = program.command('acp').description('serve the Agent Client Protocol on stdin/stdout, for editors such as Zed (docs/acp.md)');
  usageErrors(acpCommand, 'keen acp');
  addModelOptions(acpCommand).action(async (opts: RunFlags) => {
    const [{ serveAcp }, { sessionFlagsOf }] = await Promise.all([import('../acp/serve.js'), import('../agent/flags.js')]);
    code = await serveAcp(sessionFlagsOf(await prepare(opts)));
  });

  const completion = program.command('completion').description('print a shell completion script: keen completion bash|zsh|fish').argument('<shell>', 'bash, zsh or fish');
  usageErrors(completion, 'keen completion').action(async (shell: string) => {
    const { completionScript } = await import('./completion.js');
    process.stdout.write(completionScript(shell, program));
  });

  const help = program.command('help').description('show help for keen or one of its commands').argument('[command]', 'the command');
  usageErrors(help, 'keen help').action((name: string | undefined) => {
    if (!name) return program.outputHelp();
    const target = program.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!target) {
      const meant = closestCommand(name, commandLineOf(program).commands);
      throw new KeenError(`unknown command "${name}"${meant ? `; did you mean \`keen ${meant}\`?` : ''} (see \`keen help\`)`, 2);
    }
    target.outputHelp();
  });

  // `keen sesions` and `keen sesion list` are mistyped commands, not a first message for the
  // model (mistyped-command.ts has the rule); `keen -- word` sends it anyway.
  const slip = mistypedCommand(argv.slice(2), commandLineOf(program));
  if (slip) {
    const meant = slip.suggestion ? `; did you mean \`keen ${slip.suggestion}\`?` : '';
    throw new KeenError(`unknown command "${slip.word}"${meant} (see \`keen help\`; \`keen -- ${slip.words.join(' ')}\` sends it as a first message)`, 2);
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
    return (await jsonUsageFailure(argv, err.message)) ?? 2;
  }
  return code;
}

/** Words that follow a command: `keen mcp list|add|remove`, `keen completion bash|zsh|fish`, `keen login codex`. */
const ARGUMENT_WORDS = ['list', 'add', 'remove', 'bash', 'zsh', 'fish', 'codex'];

/** The program's flags and commands, as mistypedCommand needs them. */
function commandLineOf(program: Command): CommandLine {
  const flags = new Map<string, 'none' | 'required' | 'optional'>();
  for (const o of program.options) {
    const takes = o.required ? 'required' : o.optional ? 'optional' : 'none';
    for (const f of [o.long, o.short]) if (f) flags.set(f, takes);
  }
  return { flags, commands: program.commands.flatMap((c) => [c.name(), ...c.aliases()]), argumentWords: ARGUMENT_WORDS };
}

/** A usage error of a run asking for JSON still prints one result object. */
async function jsonUsageFailure(argv: string[], message: string): Promise<number | undefined> {
  const i = argv.findIndex((a) => a === '--output-format' || a === '--format');
  const inline = argv.find((a) => /^--(output-)?format=/.test(a))?.split('=')[1];
  const format = inline ?? (i >= 0 ? argv[i + 1] : undefined);
  if (format !== 'json' && format !== 'stream-json') return undefined;
  const { startupResult } = await import('./headless/result.js');
  process.stdout.write(`${JSON.stringify(startupResult(message.replace(/^error: /, ''), 0, 'usage'))}\n`);
  return 2;
}
