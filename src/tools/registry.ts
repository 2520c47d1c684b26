import * as z from 'zod';
import type { ToolCall, ToolMessage } from '../core/message.js';
import type { ToolDefinition } from '../core/provider.js';
import { errorText } from '../errors.js';
import { rememberToolDefinitionTokens } from '../tokens/token-estimator.js';
import { builtInDefinition } from './definition-table.js';
import { guardCredentials } from './permissions/credential-guard.js';
import { authorize } from './permissions/gates.js';
import { CANCELLED, type PermissionRequest, type ToolContext, type ToolOutcome, type ToolRegistry } from './types.js';

export { CANCELLED } from './types.js';

/**
 * A tool: its description and zod schema live beside its code. `args` reaching `describe` and
 * `run` have already passed the schema.
 */
export interface Tool<A = any> {
  readonly name: string;
  /** What the model reads to decide when and how to call the tool. */
  readonly description: string;
  readonly schema: z.ZodType<A>;
  /**
   * The JSON Schema sent to the model when it is not derived from `schema` (an MCP server's own
   * schema; `schema` then only checks that the arguments are an object).
   */
  readonly inputSchema?: Record<string, unknown>;
  /** Mutating tools ask `ctx.permissions` before `run`; so does every tool with `describe`. */
  readonly mutating: boolean;
  /** Neighbouring calls of concurrent tools in one reply run at the same time (bounded by the loop). */
  readonly concurrent?: boolean;
  /**
   * Describe the call for the permission gate (its access and real paths, see
   * `PermissionRequest`). May throw a `ToolError` to refuse the call before anyone is asked (e.g.
   * an edit whose old_string is not in the file).
   */
  describe?(args: A, ctx: ToolContext): PermissionRequest | Promise<PermissionRequest>;
  /** Do the work. Throw `ToolError` for expected failures; any throw becomes an error result. */
  run(args: A, ctx: ToolContext): Promise<ToolOutcome | string>;
}

/** An expected tool failure: its message goes to the model verbatim, without a "failed" prefix. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/**
 * Infers a tool's argument type from its schema. A schema given as a function (`once`, core/lazy.ts) is
 * built at its first use, a call's validation: the definitions a run sends come from the build's
 * table, so importing the tools builds no zod schema.
 */
export function defineTool<S extends z.ZodType>(tool: Omit<Tool<z.output<S>>, 'schema'> & { schema: S | (() => S) }): Tool<z.output<S>> {
  const { schema } = tool;
  if (typeof schema !== 'function') return tool as Tool<z.output<S>>;
  return Object.defineProperty({ ...tool }, 'schema', { get: schema as () => S, enumerable: true }) as Tool<z.output<S>>;
}

/** JSON Schema for the model: the schema's input side, without the `$schema` marker. */
export function toInputSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/**
 * A tool's definition as sent: an MCP tool's own schema, a built-in tool's from the bundle's
 * build-time table (with its token count when the description is the counted one), else its zod
 * schema converted now.
 */
function definitionOf(tool: Tool): ToolDefinition {
  const built = tool.inputSchema ? undefined : builtInDefinition(tool.name);
  const definition = deepFreeze({ name: tool.name, description: tool.description, input_schema: tool.inputSchema ?? built?.input_schema ?? toInputSchema(tool.schema) });
  if (built && built.description === tool.description) rememberToolDefinitionTokens(definition, built.tokens);
  return definition;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** One line per failing field, e.g. `path is required; offset: Too small: expected number to be >=1`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : 'arguments';
      if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
        return `${field} is required`;
      }
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}

/**
 * Build a registry over `tools`. `execute` never throws: bad JSON, schema failures (naming the
 * field), unknown tools, permission denials, tool throws and cancellation all come back as a
 * `ToolMessage` with `is_error: true`.
 */
export function createToolRegistry(tools: Tool[]): ToolRegistry {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`duplicate tool name: ${tool.name}`);
    byName.set(tool.name, tool);
  }
  let definitions: ToolDefinition[] | undefined;

  return {
    definitions() {
      // Built once and frozen: every turn gets the same definition objects (a fresh array), so
      // the token estimator counts them once, and no caller can change what the next one sends.
      definitions ??= tools.map(definitionOf);
      return [...definitions];
    },

    concurrent: (name) => byName.get(name)?.concurrent === true,

    async execute(call, ctx) {
      const outcome = await executeCall(byName, call, { ...ctx, callId: call.id });
      const message: ToolMessage = {
        role: 'tool',
        tool_call_id: call.id,
        name: call.name,
        content: outcome.content,
      };
      if (outcome.is_error) message.is_error = true;
      if (outcome.images?.length) message.images = outcome.images.map((i) => ({ media_type: i.mimeType, data: i.data }));
      return message;
    },
  };
}

async function executeCall(byName: Map<string, Tool>, call: ToolCall, ctx: ToolContext): Promise<ToolOutcome> {
  if (ctx.signal.aborted) return { content: CANCELLED, is_error: true };
  const tool = byName.get(call.name);
  if (!tool) {
    const known = [...byName.keys()].join(', ') || 'none';
    return { content: `Unknown tool "${call.name}". Available tools: ${known}.`, is_error: true };
  }

  const parsed = parseArgs(tool, call.args);
  if ('error' in parsed) return { content: parsed.error, is_error: true };

  try {
    return await raceAbort(ctx.signal, async () => {
      // Every described call is judged (reads outside the workspace ask); a read-only tool
      // without `describe` runs freely.
      if (tool.mutating || tool.describe) {
        const denied = await authorize(tool, parsed.args, { ...ctx, permissions: guardCredentials(ctx.permissions) }, call);
        if (denied) return denied;
        if (ctx.signal.aborted) return { content: CANCELLED, is_error: true };
      }
      const result = await tool.run(parsed.args, ctx);
      return typeof result === 'string' ? { content: result } : result;
    });
  } catch (err) {
    if (err instanceof ToolError) return { content: err.message, is_error: true };
    return { content: `${tool.name} failed: ${errorText(err)}`, is_error: true };
  }
}

function parseArgs(tool: Tool, raw: string): { args: unknown } | { error: string } {
  let value: unknown = {};
  // Some providers send an empty string for a call without arguments.
  if (raw.trim() !== '') {
    try {
      value = JSON.parse(raw);
    } catch (err) {
      return { error: `Invalid arguments for ${tool.name}: not valid JSON (${errorText(err)}).` };
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { error: `Invalid arguments for ${tool.name}: expected a JSON object.` };
  }
  const result = tool.schema.safeParse(value);
  if (!result.success) return { error: `Invalid arguments for ${tool.name}: ${describeIssues(result.error)}.` };
  return { args: result.data };
}

/** Resolve with "cancelled" as soon as `signal` aborts; the tool cleans up on its own. */
function raceAbort(signal: AbortSignal, work: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  return new Promise<ToolOutcome>((resolve, reject) => {
    const onAbort = () => resolve({ content: CANCELLED, is_error: true });
    signal.addEventListener('abort', onAbort, { once: true });
    work().then(
      (outcome) => {
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
