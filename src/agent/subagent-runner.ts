import { mkdir, appendFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import type { AgentDefinition } from '../project/subagents.js';
import type { StreamEvent } from '../core/events.js';
import { systemMessage, userMessage, type Message } from '../core/message.js';
import { addUsage, emptyUsage, type Usage } from '../core/usage.js';
import type { ChatClient } from '../loop/tool-loop.js';
import { redactedJsonLine } from '../transcript/redact.js';
import { CANCELLED, ToolError, type Tool } from '../tools/registry.js';
import { TASK_TOOL, type SubagentRunner, type TaskArgs } from '../tools/task.js';
import type { ToolContext, ToolOutcome, ToolRegistry } from '../tools/types.js';

/** The model a child talks to: the parent's, or the one its definition names. */
export interface ChildModel {
  client: ChatClient;
  /** The model name shown to the user. */
  name: string;
  wireId: string;
  maxOutputTokens: number;
  thinkingBudget?: number;
}

/** What the REPL shows on the task card while the child runs. */
export interface SubagentProgress {
  agent: string;
  /** Model requests the child has made so far. */
  turns: number;
  /** The tool the child is running now (its one-line summary name). */
  tool?: string;
}

export interface SubagentDeps {
  /** Agent definitions, read fresh for each call. */
  agents(): AgentDefinition[];
  /** The tools a child may get (never `task`: nesting depth is 1). */
  tools(): Tool[];
  /** Builds the child's registry over its tools (plan mode, tool set). */
  registry(tools: Tool[]): ToolRegistry;
  /** The child's system prompt for its definition (undefined = general purpose). */
  systemPrompt(agent: AgentDefinition | undefined, tools: Tool[]): string;
  /** The parent's model, or the named one. */
  model(name?: string): Promise<ChildModel>;
  /** The parent session's folder: child transcripts go to `subagents/` in it. */
  sessionDir: string;
  secrets: readonly string[];
  /** Every usage the child reports, compaction included: added to the session's spend. */
  onUsage(usage: Usage): void;
  onProgress?(callId: string, progress: SubagentProgress): void;
}

export const GENERAL_AGENT = 'general-purpose';

/**
 * Runs `task` calls: a child agent loop through the shared loop (`ChatClient.streamChat`) with a
 * fresh context — its own system prompt, only its tools, the parent's permissions (the client's
 * gate), its own automatic compaction — and returns only its final answer with its usage. The
 * child's events go to a JSONL transcript in the parent session's folder.
 */
export function createSubagentRunner(deps: SubagentDeps): SubagentRunner {
  let seq = 0;
  return {
    async run(args: TaskArgs, ctx: ToolContext): Promise<ToolOutcome> {
      const agents = deps.agents();
      const def = args.agent && args.agent !== GENERAL_AGENT ? agents.find((a) => a.name === args.agent) : undefined;
      if (args.agent && args.agent !== GENERAL_AGENT && !def) {
        throw new ToolError(`Unknown agent "${args.agent}". Available agents: ${[GENERAL_AGENT, ...agents.map((a) => a.name)].join(', ')}.`);
      }
      const name = def?.name ?? GENERAL_AGENT;
      const all = deps.tools().filter((t) => t.name !== TASK_TOOL);
      const tools = def?.tools ? all.filter((t) => def.tools?.includes(t.name)) : all;
      const model = await deps.model(def?.model);
      const registry = deps.registry(tools);
      const messages: Message[] = [systemMessage(deps.systemPrompt(def, tools)), userMessage(args.prompt)];
      const request = { model: model.wireId, messages, tools: registry.definitions(), maxOutputTokens: model.maxOutputTokens, thinkingBudget: model.thinkingBudget };
      const file = join(deps.sessionDir, 'subagents', `${safeName(ctx.callId ?? `call-${++seq}`)}.jsonl`);
      const log = transcriptWriter(file, deps.secrets);
      await log({ kind: 'start', agent: name, model: model.name, prompt: args.prompt, tools: tools.map((t) => t.name) });

      let usage = emptyUsage();
      let turns = 0;
      let answer = '';
      let failure: string | undefined;
      let stop: string | undefined;
      /** The service's explanation when the child's model declined ('' when it gave none). */
      let declined: string | undefined;
      const progress = (tool?: string) => ctx.callId && deps.onProgress?.(ctx.callId, { agent: name, turns, tool });
      const spend = (u: Usage | undefined) => {
        if (!u) return;
        usage = addUsage(usage, u);
        deps.onUsage(u);
      };
      progress();
      for await (const ev of model.client.streamChat(request, registry, { signal: ctx.signal }) as AsyncGenerator<StreamEvent>) {
        switch (ev.type) {
          case 'message':
            if (ev.message.role === 'assistant') {
              turns++;
              answer = ev.message.content;
            }
            await log({ kind: 'message', message: ev.message });
            progress();
            break;
          case 'tool_call_started':
            progress(ev.call.name);
            break;
          case 'usage':
            spend(ev.usage);
            break;
          case 'auto_compaction_applied':
          case 'auto_compaction_failed':
          case 'auto_compaction_cancelled':
            spend(ev.usage);
            await log({ kind: ev.type });
            break;
          case 'error':
            failure = ev.error.kind === 'cancelled' ? CANCELLED : ev.error.message;
            break;
          case 'done':
            stop = ev.stopReason;
            if (ev.stopReason === 'refusal') declined = ev.explanation ?? '';
            break;
          default:
            break;
        }
      }
      await log({ kind: 'end', usage, turns, stop_reason: stop ?? null, error: failure ?? null });
      const footer = `[subagent ${name}: ${turns} ${turns === 1 ? 'request' : 'requests'}, ${usage.input + usage.cache_read + usage.cache_write} input and ${usage.output} output tokens]`;
      if (failure === CANCELLED) return { content: CANCELLED, is_error: true };
      if (failure) return { content: `The subagent failed: ${failure}\n${footer}`, is_error: true };
      if (declined !== undefined) {
        const said = answer.trim() ? `\n${answer.trim()}` : '';
        return { content: `The subagent's model declined to answer${declined ? `: ${declined}` : '.'}${said}\n\n${footer}`, is_error: true };
      }
      const text = answer.trim() || (stop === 'max_turns' ? 'The subagent stopped at the maximum number of turns without an answer.' : 'The subagent gave no answer.');
      return { content: `${text}\n\n${footer}` };
    },
  };
}

function safeName(id: string): string {
  return id.replace(/[^\w.-]/g, '_').slice(0, 80) || 'call';
}

/** Appends redacted JSONL records; a failing disk never fails the child (the answer matters more). */
function transcriptWriter(file: string, secrets: readonly string[]): (record: Record<string, unknown>) => Promise<void> {
  let ready: Promise<unknown> | undefined;
  return async (record) => {
    ready ??= mkdir(dirname(file), { recursive: true, mode: 0o700 });
    try {
      await ready;
      await appendFile(file, redactedJsonLine({ ts: new Date().toISOString(), ...record }, secrets), { mode: 0o600 });
    } catch {
      // best effort
    }
  };
}
