import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HeadTailBuffer } from '../output-cap.js';
import type { ToolImage, ToolOutcome } from '../types.js';

/** MCP results are capped like bash output: the head and the tail are kept. */
export const MCP_HEAD_CHARS = 10_000;
export const MCP_TAIL_CHARS = 20_000;

/**
 * The largest image kept for the model: the strictest limit of the APIs that take images in tool
 * results (Bedrock 3.75 MB; Anthropic 5 MB). A larger one would fail every later request of the
 * session until compaction pruned it, so it is named, not kept.
 */
export const MCP_IMAGE_MAX_BYTES = 3.75 * 1024 * 1024;

function bytesOf(base64: string): number {
  return Math.floor((base64.length * 3) / 4);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(2).replace(/\.?0+$/, '')} MB`;
}

function sizeOf(base64: string): string {
  return formatBytes(bytesOf(base64));
}

/**
 * A `tools/call` result as a Keen tool outcome. Text blocks are joined with newlines; an image is
 * kept in `images` (for providers that accept images in tool results) and named by a placeholder
 * line in the text; audio and binary resources are named; embedded text resources are included
 * under their URI; resource links are named with their URI. `structuredContent` stands in when
 * there is no content. `isError` becomes an error result. The text is capped.
 */
export function mapCallResult(result: CallToolResult): ToolOutcome {
  const buffer = new HeadTailBuffer(MCP_HEAD_CHARS, MCP_TAIL_CHARS);
  const images: ToolImage[] = [];
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image':
        if (bytesOf(block.data) > MCP_IMAGE_MAX_BYTES) {
          parts.push(`[image: ${block.mimeType}, ${sizeOf(block.data)} — larger than the ${formatBytes(MCP_IMAGE_MAX_BYTES)} the model APIs accept; not shown]`);
          break;
        }
        images.push({ mimeType: block.mimeType, data: block.data });
        parts.push(`[image: ${block.mimeType}, ${sizeOf(block.data)}]`);
        break;
      case 'audio':
        parts.push(`[audio: ${block.mimeType}, ${sizeOf(block.data)} — not shown]`);
        break;
      case 'resource_link':
        parts.push(`[resource link: ${block.name} <${block.uri}>${block.mimeType ? ` (${block.mimeType})` : ''}${block.description ? ` — ${block.description}` : ''}]`);
        break;
      case 'resource': {
        const r = block.resource;
        if ('text' in r && typeof r.text === 'string') parts.push(`[resource ${r.uri}]\n${r.text}`);
        else parts.push(`[resource ${r.uri}: ${r.mimeType ?? 'binary'}${'blob' in r && typeof r.blob === 'string' ? `, ${sizeOf(r.blob)}` : ''} — not shown]`);
        break;
      }
      default:
        parts.push(`[${(block as { type: string }).type} content — not shown]`);
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  buffer.push(parts.join('\n'));
  let content = buffer.text();
  if (content.trim() === '') content = result.isError ? 'The tool reported an error without a message.' : '(no output)';
  const outcome: ToolOutcome = { content };
  if (result.isError) outcome.is_error = true;
  if (images.length) outcome.images = images;
  return outcome;
}
