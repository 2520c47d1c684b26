import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { measureImage } from '../../tokens/image-measure.js';
import { scrubText } from '../../security/scrubber.js';
import { sniffImageType } from '../image-file.js';
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
/** The images one result may keep in all (a request carries the history's images: Anthropic takes 32 MB). */
export const MCP_IMAGES_MAX_BYTES = 8 * 1024 * 1024;
/** The longest side the APIs take (Anthropic: 8,000 px). */
export const MCP_IMAGE_MAX_SIDE = 8000;

function bytesOf(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(2).replace(/\.?0+$/, '')} MB`;
}

function sizeOf(base64: string): string {
  return formatBytes(bytesOf(base64));
}

/**
 * The image type to send `base64` as, or why it cannot go to the model: too many bytes, too many
 * for this result after `kept`, bytes that are no PNG, JPEG, GIF or WebP (by their magic numbers;
 * the declared type is the server's word and is not used) or that do not parse, or a side longer
 * than the APIs take (from its header, by image-size). Kept, such an image would fail every later
 * request of the session until compaction pruned it.
 */
function checkImage(base64: string, kept: number): { type: string } | { refused: string } {
  const bytes = bytesOf(base64);
  if (bytes > MCP_IMAGE_MAX_BYTES) return { refused: `larger than the ${formatBytes(MCP_IMAGE_MAX_BYTES)} the model APIs accept` };
  if (kept + bytes > MCP_IMAGES_MAX_BYTES) return { refused: `over the ${formatBytes(MCP_IMAGES_MAX_BYTES)} of images one result may carry` };
  const data = Buffer.from(base64, 'base64');
  const type = sniffImageType(data);
  if (!type) return { refused: 'its bytes are no PNG, JPEG, GIF or WebP image' };
  let width = 0;
  let height = 0;
  try {
    ({ width = 0, height = 0 } = measureImage(data));
  } catch {
    return { refused: `its bytes could not be read as ${type} (damaged?)` };
  }
  if (width > MCP_IMAGE_MAX_SIDE || height > MCP_IMAGE_MAX_SIDE) return { refused: `${width}×${height} px, longer than the ${MCP_IMAGE_MAX_SIDE} px a side the model APIs accept` };
  return { type };
}

/**
 * A `tools/call` result as a Keen tool outcome. Text blocks are joined with newlines; an image is
 * kept in `images` (for providers that accept images in tool results) and named by a placeholder
 * line in the text; audio and binary resources are named; embedded text resources are included
 * under their URI; resource links are named with their URI. `structuredContent` stands in when
 * there is no content. `isError` becomes an error result. The text is scrubbed of credentials
 * (src/security/scrubber.ts), then capped.
 */
export function mapCallResult(result: CallToolResult): ToolOutcome {
  const buffer = new HeadTailBuffer(MCP_HEAD_CHARS, MCP_TAIL_CHARS);
  const images: ToolImage[] = [];
  const parts: string[] = [];
  let kept = 0;
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image': {
        const checked = checkImage(block.data, kept);
        if ('refused' in checked) {
          parts.push(`[image: ${block.mimeType}, ${sizeOf(block.data)} — ${checked.refused}; not shown]`);
          break;
        }
        kept += bytesOf(block.data);
        images.push({ mimeType: checked.type, data: block.data });
        parts.push(`[image: ${checked.type}, ${sizeOf(block.data)}]`);
        break;
      }
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
  // A server that echoes a credential does not pass it to the model or the transcript; scrubbed
  // before the cap, so a credential cut in half cannot leak its first half.
  buffer.push(scrubText(parts.join('\n')));
  let content = buffer.text();
  if (content.trim() === '') content = result.isError ? 'The tool reported an error without a message.' : '(no output)';
  const outcome: ToolOutcome = { content };
  if (result.isError) outcome.is_error = true;
  if (images.length) outcome.images = images;
  return outcome;
}
