/**
 * How each service checks images in user messages and tool results, shared by the loopback fakes: the media type
 * must be one it accepts, the data valid base64 whose bytes really are an image of that type, and
 * the image must sit where the wire API allows it; a whole request must stay within the service's
 * image count (and Anthropic's 2000 px side once it holds more than 20). Each returns the
 * service's error text, or undefined when the request is acceptable.
 */

import { imageSize } from 'image-size';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The image type the bytes are, from their magic numbers (undefined: not an image we know). */
export function sniffImage(bytes: Buffer): string | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (bytes.length >= 12 && bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

const ACCEPTED = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

/** Base64 text → what is wrong with it as an image of `mediaType`, or undefined. */
function badImage(data: unknown, mediaType: string): string | undefined {
  if (typeof data !== 'string' || data === '' || data.length % 4 !== 0 || !BASE64.test(data)) return 'the image data is not valid base64';
  const actual = sniffImage(Buffer.from(data, 'base64'));
  if (!actual) return 'the image data could not be processed as an image';
  if (actual !== mediaType) return `the image was specified using the ${mediaType} media type, but it appears to be a ${actual} image`;
  return undefined;
}

/** Anthropic Messages: `tool_result.content` is a string or a list of text and base64 image blocks. */
export function anthropicImageError(body: any): string | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const images: { at: string; data: string }[] = [];
  for (let i = 0; i < messages.length; i++) {
    const content: any[] = Array.isArray(messages[i]?.content) ? messages[i].content : [];
    for (let j = 0; j < content.length; j++) {
      const b = content[j];
      if (b?.type === 'image') {
        const at = `messages.${i}.content.${j}`;
        if (messages[i].role !== 'user') return `${at}: image content blocks are only allowed in user messages`;
        const bad = anthropicImageBlockError(b, at);
        if (bad) return bad;
        images.push({ at, data: b.source.data });
        continue;
      }
      if (b?.type !== 'tool_result' || !Array.isArray(b.content)) continue;
      for (let k = 0; k < b.content.length; k++) {
        const at = `messages.${i}.content.${j}.tool_result.content.${k}`;
        const c = b.content[k];
        if (c?.type === 'text') {
          if (typeof c.text !== 'string' || c.text === '') return `${at}: text content blocks must be non-empty`;
        } else if (c?.type === 'image') {
          const bad = anthropicImageBlockError(c, at);
          if (bad) return bad;
          images.push({ at, data: c.source.data });
        } else {
          return `${at}: Input tag '${String(c?.type)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document'`;
        }
      }
    }
  }
  // The request-level limits (platform.claude.com vision page): 100 images (200k-context models),
  // and each at most 2000×2000 px once a request holds more than 20.
  if (images.length > 100) return `messages: too many images in one request: ${images.length} > 100`;
  if (images.length > 20) {
    for (const i of images) {
      const { width, height } = imageSize(Buffer.from(i.data, 'base64'));
      if (width > 2000 || height > 2000)
        return `${i.at}.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels`;
    }
  }
  return undefined;
}

/** One Anthropic `image` block (in a user turn or a tool result) as the service checks it. */
function anthropicImageBlockError(c: any, at: string): string | undefined {
  if (c.source?.type !== 'base64') return `${at}.image.source: Input tag '${String(c.source?.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url'`;
  if (!ACCEPTED.includes(c.source.media_type)) return `${at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
  // 5 MB per image (the vision page), of the decoded bytes.
  if (typeof c.source.data === 'string' && (c.source.data.length * 3) / 4 > 5 * 1024 * 1024) return `${at}.image.source.base64: image exceeds 5 MB maximum`;
  const bad = badImage(c.source.data, c.source.media_type);
  return bad ? `${at}.image.source.base64: ${bad}` : undefined;
}

const CONVERSE_FORMATS: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

/** Bedrock Converse: `toolResult.content` holds text, json, image {format, source.bytes}, document blocks. */
export function converseImageError(body: any): string | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  let images = 0;
  for (let i = 0; i < messages.length; i++) {
    const content: any[] = Array.isArray(messages[i]?.content) ? messages[i].content : [];
    for (let j = 0; j < content.length; j++) {
      const top = content[j]?.image;
      if (top) {
        const at = `messages.${i}.content.${j}`;
        const bad = converseImageBlockError(top, at);
        if (bad) return bad;
        images++;
        continue;
      }
      const r = content[j]?.toolResult;
      if (!r) continue;
      const blocks: any[] = Array.isArray(r.content) ? r.content : [];
      for (let k = 0; k < blocks.length; k++) {
        const at = `messages.${i}.content.${j}.toolResult.content.${k}`;
        const b = blocks[k];
        if (!b || typeof b !== 'object') return `The value at ${at} is not a ToolResultContentBlock.`;
        if ('text' in b || 'json' in b || 'document' in b) continue;
        if (!('image' in b)) return `The ToolResultContentBlock at ${at} has an unsupported member: ${Object.keys(b).join(', ')}.`;
        const bad = converseImageBlockError(b.image, at);
        if (bad) return bad;
        images++;
      }
    }
  }
  // Converse takes up to 20 images in one request (API_runtime_Message).
  if (images > 20) return `Too many images: the request holds ${images} images; the maximum is 20.`;
  return undefined;
}

/** One Converse `image` block (`{format, source: {bytes}}`, bytes base64 in the JSON body). */
function converseImageBlockError(image: any, at: string): string | undefined {
  const mediaType = CONVERSE_FORMATS[image?.format];
  if (!mediaType) return `The value at ${at}.image.format failed to satisfy constraint: Member must satisfy enum value set: [png, jpeg, gif, webp]`;
  // 3.75 MB per image (API_runtime_ImageBlock).
  if (typeof image?.source?.bytes === 'string' && (image.source.bytes.length * 3) / 4 > 3.75 * 1024 * 1024) return `The image at ${at}.image exceeds the 3.75 MB limit.`;
  const bad = badImage(image?.source?.bytes, mediaType);
  return bad ? `The image at ${at}.image is invalid: ${bad}.` : undefined;
}

/** A base64 data URL of an accepted image type: what is wrong with it, or undefined. */
function dataUrlError(value: unknown): string | undefined {
  const url = /^data:([^;,]+);base64,(.*)$/s.exec(typeof value === 'string' ? value : '');
  if (!url) return 'expected a base64-encoded data URL with an image MIME type';
  if (!ACCEPTED.includes(url[1])) return `unsupported image type ${url[1]}`;
  return badImage(url[2], url[1]);
}

/** OpenAI Responses: `function_call_output.output` is a string or a list of input_text / input_image / input_file. */
export function responsesImageError(body: any): string | undefined {
  const input: any[] = Array.isArray(body?.input) ? body.input : [];
  let images = 0;
  for (let i = 0; i < input.length; i++) {
    const item = input[i];
    if ((item?.type === 'message' || item?.type === undefined) && Array.isArray(item?.content)) {
      for (let k = 0; k < item.content.length; k++) {
        const c = item.content[k];
        if (c?.type !== 'input_image') continue;
        if (item.role !== 'user') return `Invalid value: 'input_image'. Supported values are: 'output_text' and 'refusal'. (input[${i}].content[${k}].type)`;
        const bad = dataUrlError(c.image_url);
        if (bad) return `Invalid 'input[${i}].content[${k}].image_url': ${bad}.`;
        images++;
      }
      continue;
    }
    if (item?.type !== 'function_call_output' || typeof item.output === 'string') continue;
    if (!Array.isArray(item.output)) return `Invalid type for 'input[${i}].output': expected a string or an array of content items.`;
    for (let k = 0; k < item.output.length; k++) {
      const at = `input[${i}].output[${k}]`;
      const c = item.output[k];
      if (c?.type === 'input_text' || c?.type === 'input_file') continue;
      if (c?.type !== 'input_image') return `Invalid value: '${String(c?.type)}'. Supported values are: 'input_text', 'input_image', and 'input_file'. (${at}.type)`;
      if (typeof c.file_id === 'string') continue;
      const url = /^data:([^;,]+);base64,(.*)$/s.exec(typeof c.image_url === 'string' ? c.image_url : '');
      if (!url) return `Invalid '${at}.image_url': expected a base64-encoded data URL with an image MIME type.`;
      if (!ACCEPTED.includes(url[1])) return `Invalid '${at}.image_url': unsupported image type ${url[1]}.`;
      const bad = badImage(url[2], url[1]);
      if (bad) return `Invalid '${at}.image_url': ${bad}.`;
      images++;
    }
  }
  // Up to 500 image inputs per request (platform.openai.com images-vision guide).
  if (images > 500) return `Invalid 'input': too many images in one request (${images}); the maximum is 500.`;
  return undefined;
}

/** Chat Completions: a `tool` message's content is a string or text parts only — never images. */
export function chatToolImageError(body: any): string | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role !== 'tool' || typeof m.content === 'string') continue;
    const parts: any[] = Array.isArray(m.content) ? m.content : [];
    for (let k = 0; k < parts.length; k++) {
      if (parts[k]?.type !== 'text')
        return `Invalid 'messages[${i}].content[${k}].type': '${String(parts[k]?.type)}'. Only 'text' content parts are supported for messages with role 'tool'.`;
    }
  }
  return undefined;
}

/** Chat Completions: a user message's `image_url` parts must be base64 data URLs of an accepted image. */
export function chatUserImageError(body: any): string | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!Array.isArray(m?.content)) continue;
    for (let k = 0; k < m.content.length; k++) {
      const p = m.content[k];
      if (p?.type !== 'image_url') continue;
      if (m.role !== 'user') return `Invalid 'messages[${i}].content[${k}].type': 'image_url' is only supported for messages with role 'user'.`;
      const bad = dataUrlError(p.image_url?.url);
      if (bad) return `Invalid 'messages[${i}].content[${k}].image_url.url': ${bad}.`;
    }
  }
  return undefined;
}

/** Gemini: `inlineData` parts need an accepted mimeType and base64 bytes of that type. */
export function geminiImageError(body: any): string | undefined {
  const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
  for (let i = 0; i < contents.length; i++) {
    const parts: any[] = Array.isArray(contents[i]?.parts) ? contents[i].parts : [];
    for (let k = 0; k < parts.length; k++) {
      const d = parts[k]?.inlineData;
      if (!d) continue;
      if (!ACCEPTED.includes(d.mimeType)) return `Unsupported MIME type: ${String(d.mimeType)} (contents[${i}].parts[${k}].inline_data)`;
      const bad = badImage(d.data, d.mimeType);
      if (bad) return `Invalid value at 'contents[${i}].parts[${k}].inline_data': ${bad}`;
    }
  }
  return undefined;
}
