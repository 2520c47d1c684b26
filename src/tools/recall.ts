import * as z from 'zod';
import { once } from '../core/lazy.js';
import { defineTool, ToolError, type Tool } from './registry.js';

/** Reads a stored artifact's text; undefined when it does not exist. */
export type ArtifactReader = (n: number) => Promise<string | undefined>;

const schema = once(() =>
  z.strictObject({
    artifact: z.union([z.string(), z.number()]).describe('The handle, e.g. "artifact#12" (or just 12).'),
    start_line: z.number().int().min(1).optional().describe('First line to return (1-based). Default: the first.'),
    end_line: z.number().int().min(1).optional().describe('Last line to return (inclusive). Default: the last.'),
  }),
);

/** The artifact number named by `artifact#12`, `#12`, `12` or 12; undefined when it names none. */
export function artifactNumber(value: string | number): number | undefined {
  const text = String(value).trim();
  const hit = /^(?:artifact)?#?(\d+)$/i.exec(text);
  return hit ? Number(hit[1]) : undefined;
}

/**
 * `recall`: the full content (or a line range) of a tool output that was stored as an artifact
 * and replaced in the history by an `artifact#N` handle, or listed in a summary's artifact index.
 */
export function createRecallTool(read: ArtifactReader): Tool {
  return defineTool({
    name: 'recall',
    description:
      'Read again a tool output that was removed from the conversation to free context. Old outputs are replaced by a handle like "[artifact#12] read_file {...} — output removed", and summaries list handles under <artifact_index>. Pass the handle; optionally start_line/end_line (1-based, inclusive) for part of it.',
    schema,
    mutating: false,
    concurrent: true,
    async run(args) {
      const n = artifactNumber(args.artifact);
      if (n === undefined) throw new ToolError(`recall: "${args.artifact}" is not an artifact handle; pass one like "artifact#12"`);
      const text = await read(n);
      if (text === undefined) throw new ToolError(`recall: artifact#${n} does not exist in this session`);
      if (args.start_line === undefined && args.end_line === undefined) return text;
      const lines = text.split('\n');
      const start = args.start_line ?? 1;
      const end = Math.min(args.end_line ?? lines.length, lines.length);
      if (start > lines.length) throw new ToolError(`recall: artifact#${n} has ${lines.length} lines; start_line ${start} is past the end`);
      if (end < start) throw new ToolError(`recall: end_line ${end} is before start_line ${start}`);
      return lines.slice(start - 1, end).join('\n');
    },
  });
}
