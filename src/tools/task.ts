import * as z from 'zod';
import { once } from '../core/lazy.js';
import { defineTool, type Tool } from './registry.js';
import type { ToolContext, ToolOutcome } from './types.js';

const schema = once(() =>
  z.object({
    agent: z.string().optional().describe('A subagent listed in the system prompt; omit for a general-purpose subagent.'),
    prompt: z.string().min(1).describe('The complete job for the subagent: it sees nothing of this conversation.'),
    description: z.string().optional().describe('A few words shown to the user while it runs.'),
  }),
);

export type TaskArgs = z.output<ReturnType<typeof schema>>;

/** Runs one child agent (src/agent/subagent-runner.ts); never throws for a model failure. */
export interface SubagentRunner {
  run(args: TaskArgs, ctx: ToolContext): Promise<ToolOutcome>;
}

export const TASK_TOOL = 'task';

/**
 * `task`: delegates a job to a child agent with a fresh context and returns only its final answer
 * (with its usage). Not mutating itself: the child's own tools ask the parent's permissions and
 * obey plan mode. Calls in one reply run concurrently (see `concurrent`).
 */
export function createTaskTool(runner: SubagentRunner): Tool {
  return defineTool({
    name: TASK_TOOL,
    description:
      'Delegate a self-contained job (research, a search across the codebase, an independent change) to a subagent with a fresh context. It has the same tools and permissions but cannot see this conversation; only its final answer comes back. Several task calls in one reply run at the same time.',
    schema,
    mutating: false,
    concurrent: true,
    run: (args, ctx) => runner.run(args, ctx),
  });
}
