import type { GetPromptResult, Prompt, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../registry.js';
import type { ToolOutcome } from '../types.js';
import { DEFAULT_DEFER_TOOLS_SHARE, DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS, type McpSettings } from './config-schema.js';
import { addCredentials, scrubText } from '../../security/scrubber.js';
import { McpConnection, type ServerState } from './connection.js';
import { mcpCredentialValues } from './credentials.js';
import { MAX_TOOL_NAME, mcpPromptCommand, mcpToolName } from './names.js';
import { mapCallResult } from './result-map.js';
import type { BrokenServer, ServerSpec } from './servers.js';
import { adaptMcpTool } from './tool-adapter.js';

/** One row of `/mcp` and `keen mcp list`. */
export interface ServerStatus {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  state: ServerState | 'skipped' | 'disabled';
  tools: number;
  prompts: number;
  error?: string;
}

/** A prompt a server offers, as the REPL's `/mcp__<server>__<prompt>` command. */
export interface PromptCommand {
  command: string;
  server: string;
  prompt: Prompt;
}

export interface McpManagerOptions {
  servers: ServerSpec[];
  /** Servers that could not even be configured (shown in status, warned about once). */
  broken?: BrokenServer[];
  settings?: McpSettings;
  env: NodeJS.ProcessEnv;
  /** One line per failure or crash, naming the server. */
  warn(line: string): void;
}

/**
 * The session's MCP servers: started together by `start()`, offered to the model as tools once
 * ready, closed together by `close()`. Tools of a server that is still starting join the tool
 * list when it is ready (`version` changes whenever the list does).
 */
export class McpManager {
  private readonly connections: McpConnection[];
  private readonly broken: BrokenServer[];
  private readonly startupTimeoutMs: number;
  private readonly toolTimeoutMs: number;
  private started: Promise<void> | undefined;
  private waited = false;
  private cachedTools: Tool[] | undefined;
  private changeListeners = new Set<() => void>();
  /** Bumped whenever the tool or prompt list may have changed. */
  version = 0;
  /** `mcp.deferToolsShare`: the share of the window MCP definitions may take before they are deferred. */
  readonly deferToolsShare: number;

  constructor(private readonly opts: McpManagerOptions) {
    this.startupTimeoutMs = opts.settings?.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    this.toolTimeoutMs = opts.settings?.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    this.deferToolsShare = opts.settings?.deferToolsShare ?? DEFAULT_DEFER_TOOLS_SHARE;
    // The headers and env values the servers get are credentials the one scrubber removes everywhere.
    addCredentials(mcpCredentialValues(opts.servers));
    const hooks = { env: opts.env, onChange: () => this.changed(), warn: (line: string) => opts.warn(scrubText(line)) };
    this.connections = opts.servers.map((spec) => new McpConnection(spec, hooks));
    this.broken = opts.broken ?? [];
  }

  /** Start every server at once; returns immediately. Idempotent. */
  start(): void {
    if (this.started) return;
    for (const b of this.broken) this.opts.warn(scrubText(`MCP server "${b.name}" not started: ${b.error}`));
    this.started = Promise.all(this.connections.map((c) => c.start())).then(() => undefined);
  }

  /**
   * Before the first request: wait until every server is up or `mcp.startupTimeoutMs` has passed,
   * whichever comes first. Later calls return at once (late servers join later requests).
   */
  async waitForStartup(signal?: AbortSignal): Promise<void> {
    this.start();
    if (this.waited) return;
    this.waited = true;
    let timer: NodeJS.Timeout | undefined;
    const abort = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.startupTimeoutMs);
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.race([this.started, abort]);
    clearTimeout(timer);
  }

  /** Resolves when every server has finished starting (ready or failed). */
  async settled(): Promise<void> {
    this.start();
    await this.started;
  }

  /** The tools of every ready (or crashed, restartable) server. */
  tools(): Tool[] {
    if (this.cachedTools) return this.cachedTools;
    const taken = new Set<string>();
    /** The next suffix to try for each name already taken (so many twins cost no more than one each). */
    const next = new Map<string, number>();
    const out: Tool[] = [];
    for (const c of this.connections) {
      if (c.state !== 'ready' && c.state !== 'crashed') continue;
      for (const t of c.tools) {
        const base = mcpToolName(c.name, t.name);
        let name = base;
        for (let k = next.get(base) ?? 2; taken.has(name); k++) {
          // Cut so the suffix fits the 64 characters providers accept.
          const suffix = `_${k}`;
          name = `${base.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
          next.set(base, k + 1);
        }
        taken.add(name);
        out.push(adaptMcpTool(c.name, t, (s, n, a, sig) => this.callTool(s, n, a, sig), name));
      }
    }
    this.cachedTools = out;
    return out;
  }

  /** One line for the user, as the servers' own warnings go (a late one included). */
  notice(line: string): void {
    this.opts.warn(scrubText(line));
  }

  async callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome> {
    const c = this.connection(server);
    const result = await c.callTool(tool, args, { signal, timeoutMs: this.toolTimeoutMs });
    return mapCallResult(result);
  }

  /** Prompts of ready servers, as slash commands. */
  promptCommands(): PromptCommand[] {
    return this.connections
      .filter((c) => c.state === 'ready')
      .flatMap((c) => c.prompts.map((prompt) => ({ command: mcpPromptCommand(c.name, prompt.name), server: c.name, prompt })));
  }

  async getPrompt(server: string, prompt: string, args: Record<string, string>): Promise<GetPromptResult> {
    const client = this.connection(server).readyClient;
    if (!client) throw new Error(`MCP server "${server}" is not running`);
    return client.getPrompt({ name: prompt, arguments: args });
  }

  async readResource(server: string, uri: string): Promise<ReadResourceResult> {
    const client = this.connection(server).readyClient;
    if (!client) throw new Error(`MCP server "${server}" is not running`);
    return client.readResource({ uri });
  }

  status(): ServerStatus[] {
    return [
      ...this.connections.map((c) => ({
        name: c.name,
        transport: c.spec.transport,
        state: c.state,
        tools: c.state === 'ready' || c.state === 'crashed' ? c.tools.length : 0,
        prompts: c.state === 'ready' ? c.prompts.length : 0,
        ...(c.error ? { error: c.error } : {}),
      })),
      ...this.broken.map((b) => ({ name: b.name, transport: b.transport, state: 'failed' as const, tools: 0, prompts: 0, error: b.error })),
    ];
  }

  /** Called on every change of tools, prompts or state. Returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Close every server (stdio: its whole process group). Safe to call more than once. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  private connection(server: string): McpConnection {
    const c = this.connections.find((x) => x.name === server);
    if (!c) throw new Error(`no MCP server named "${server}"`);
    return c;
  }

  private changed(): void {
    this.cachedTools = undefined;
    this.version++;
    for (const l of this.changeListeners) l();
  }
}
