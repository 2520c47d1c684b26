import type { ToolMessage } from '../core/message.js';
import type { ToolRegistry } from '../tools/types.js';
import { artifactNumber } from '../tools/recall.js';

/** Where the outputs go (src/transcript/artifacts.ts implements it). */
export interface ArtifactSink {
  put(content: string): Promise<number>;
}

/**
 * Stores every tool output once as an artifact and stamps `artifact_ref` on its message, so a
 * later compaction can prune it to a handle. A `recall` result is not stored again: it carries the
 * number of the artifact it read, so it can be pruned back to the same handle. A failed write
 * only costs the handle: the tool result itself is returned unchanged.
 */
export function artifactRegistry(inner: ToolRegistry, sink: ArtifactSink): ToolRegistry {
  return {
    definitions: () => inner.definitions(),
    concurrent: (name) => inner.concurrent?.(name) ?? false,
    async execute(call, ctx): Promise<ToolMessage> {
      const result = await inner.execute(call, ctx);
      if (call.name === 'recall') {
        if (!result.is_error) {
          const n = recalled(call.args);
          if (n !== undefined) result.artifact_ref = n;
        }
        return result;
      }
      try {
        result.artifact_ref = await sink.put(result.content);
      } catch {
        // no artifact, no handle: the output simply stays unprunable
      }
      return result;
    },
  };
}

function recalled(args: string): number | undefined {
  try {
    const parsed = JSON.parse(args) as { artifact?: string | number; start_line?: unknown; end_line?: unknown };
    // A line range is only part of the artifact: pruning it back to the whole handle is still right.
    return parsed.artifact === undefined ? undefined : artifactNumber(parsed.artifact);
  } catch {
    return undefined;
  }
}
