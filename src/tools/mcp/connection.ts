import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Prompt, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { errorText } from '../../errors.js';
import { scrubText } from '../../security/scrubber.js';
import { VERSION } from '../../version.js';
import { ToolError } from '../registry.js';
import type { ServerSpec } from './servers.js';
import { ProcessGroupStdioTransport } from './stdio-transport.js';
import { createTransport } from './transport.js';

export type ServerState = 'starting' | 'ready' | 'failed' | 'crashed' | 'closed';

/** The JSON-RPC code the SDK uses for a request that timed out. */
const REQUEST_TIMEOUT_CODE = -32001;

export interface ConnectionHooks {
  env: NodeJS.ProcessEnv;
  /** The server's tools, prompts or state changed. */
  onChange(): void;
  /** One warning line for the user, naming the server. */
  warn(line: string): void;
}

/**
 * One MCP server: its client, transport and what it offers. A server that fails to start is
 * `failed` (one warning); a stdio server that exits while in use is `crashed` (one warning) and
 * is restarted once, on its next call.
 */
export class McpConnection {
  state: ServerState = 'starting';
  error: string | undefined;
  tools: McpTool[] = [];
  prompts: Prompt[] = [];
  private client: Client | undefined;
  private transport: Transport | undefined;
  private restarts = 0;

  constructor(
    readonly spec: ServerSpec,
    private readonly hooks: ConnectionHooks,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  /** Connect and list tools and prompts. Never throws: failure is the `failed` state. */
  async start(): Promise<void> {
    this.state = 'starting';
    this.error = undefined;
    try {
      await this.connect();
      if (this.state !== 'starting') return; // closed (or crashed) meanwhile
      this.state = 'ready';
    } catch (err) {
      if ((this.state as ServerState) === 'closed') return;
      this.state = 'failed';
      this.error = this.describeFailure(err);
      this.hooks.warn(`MCP server "${this.name}" failed to start: ${this.error}`);
      await this.dropClient();
    }
    this.hooks.onChange();
  }

  private async connect(): Promise<void> {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new Client(
      { name: 'keen', version: VERSION },
      {
        listChanged: {
          tools: {
            onChanged: (err, tools) => {
              if (err || !tools || client !== this.client) return;
              this.tools = tools;
              this.hooks.onChange();
            },
          },
          prompts: {
            onChanged: (err, prompts) => {
              if (err || !prompts || client !== this.client) return;
              this.prompts = prompts;
              this.hooks.onChange();
            },
          },
        },
      },
    );
    const transport = await createTransport(this.spec, this.hooks.env);
    this.client = client;
    this.transport = transport;
    client.onclose = () => this.onClosed(client);
    await client.connect(transport);
    this.tools = await allPages(
      'tools/list',
      (params) => client.listTools(params),
      (page) => page.tools,
    );
    this.prompts = client.getServerCapabilities()?.prompts
      ? await allPages(
          'prompts/list',
          (params) => client.listPrompts(params),
          (page) => page.prompts,
        )
      : [];
  }

  private onClosed(client: Client): void {
    if (client !== this.client || this.state !== 'ready') return;
    this.state = 'crashed';
    const how = this.transport instanceof ProcessGroupStdioTransport ? (this.transport.closedBecause ?? this.transport.exitStatus) : undefined;
    this.error = `the server stopped${how ? ` (${how})` : ''}`;
    const next = this.spec.transport === 'stdio' && this.restarts === 0 ? '; it is restarted on its next call' : '';
    this.hooks.warn(`MCP server "${this.name}" stopped${how ? ` (${how})` : ''}${next}`);
    this.hooks.onChange();
  }

  /** Call a tool. Throws a ToolError naming the server when it cannot be reached. */
  async callTool(tool: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<CallToolResult> {
    // The process may have exited before its streams closed (the 'close' that marks the crash).
    if (this.state === 'ready' && this.client && this.transport instanceof ProcessGroupStdioTransport && this.transport.exitStatus) {
      this.onClosed(this.client);
    }
    if (this.state === 'crashed' && this.spec.transport === 'stdio' && this.restarts === 0) {
      this.restarts++;
      await this.dropClient();
      await this.start();
    }
    const client = this.client;
    if (this.state !== 'ready' || !client) {
      const again = this.state === 'crashed' && this.restarts > 0 ? ' It was restarted once already and is not restarted again.' : '';
      throw new ToolError(`MCP server "${this.name}" is not running: ${this.error ?? this.state}.${again}`);
    }
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: options.signal,
        timeout: options.timeoutMs,
      })) as CallToolResult;
    } catch (err) {
      if (options.signal.aborted) throw new ToolError('cancelled');
      if ((err as { code?: number }).code === REQUEST_TIMEOUT_CODE) {
        throw new ToolError(`MCP tool ${tool} on server "${this.name}" timed out after ${options.timeoutMs} ms (mcp.toolTimeoutMs); the call was cancelled.`);
      }
      if ((this.state as ServerState) === 'crashed') throw new ToolError(`MCP server "${this.name}" stopped during the call: ${this.error}.`);
      throw new ToolError(`MCP tool ${tool} on server "${this.name}" failed: ${scrubText(errorText(err))}`);
    }
  }

  /** The underlying client, for prompts and resources (undefined unless ready). */
  get readyClient(): Client | undefined {
    return this.state === 'ready' ? this.client : undefined;
  }

  async close(): Promise<void> {
    this.state = 'closed';
    await this.dropClient();
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    try {
      if (client) await client.close();
      else await transport?.close();
    } catch {
      // Closing a dead server can fail; it is gone either way.
    }
    // client.close() may not reach a transport whose connect never finished.
    await transport?.close().catch(() => undefined);
  }

  private describeFailure(err: unknown): string {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && this.spec.transport === 'stdio') return `command not found: ${this.spec.command}`;
    // Scrubbed before the line is cut, so a credential cut in half cannot leak its first half.
    const stderr = this.transport instanceof ProcessGroupStdioTransport ? lastLine(scrubText(this.transport.stderr)) : '';
    const text = scrubText(errorText(err)).replace(/\s+/g, ' ').trim();
    return stderr && !text.includes(stderr) ? `${text} (${stderr})` : text;
  }
}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const last = lines.at(-1) ?? '';
  return last.length > 200 ? `${last.slice(0, 200)}…` : last;
}

/** The most pages one list may take: a server whose cursor never ends must not keep Keen listing. */
const MAX_LIST_PAGES = 1000;

/**
 * Every item of a paginated MCP list (`tools/list`, `prompts/list`), page after page. Throws after
 * `MAX_LIST_PAGES` pages (the server then fails to start, named).
 */
async function allPages<P extends { nextCursor?: string }, T>(method: string, list: (params: { cursor: string } | undefined) => Promise<P>, items: (page: P) => T[]): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    if (++pages > MAX_LIST_PAGES) throw new Error(`its ${method} has more than ${MAX_LIST_PAGES} pages`);
    const page = await list(cursor ? { cursor } : undefined);
    out.push(...items(page));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
