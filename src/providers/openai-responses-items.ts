import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses';
import type { NativeEncoder } from '../core/conversation.js';
import { cutImages, IMAGE_LIMITS, type ImageLimits } from '../tokens/image-budget.js';
import type { ResponseFunctionCallOutputItemList, ResponseInputContent } from 'openai/resources/responses/responses';
import { partsOf, providerOf, type AssistantMessage, type Message, type ToolMessage, type UserMessage } from '../core/message.js';
import type { ToolDefinition } from '../core/provider.js';

/** Native Responses state: `instructions` (the system prompt) plus the `input` item list. Read-only. */
export interface ResponsesState {
  readonly instructions: string;
  readonly input: readonly ResponseInputItem[];
}

/**
 * Lossless messages → Responses input items, one message at a time. The system prompt travels in
 * `instructions` (several system messages joined with a blank line), so a compaction replacement
 * rebuilds both the same way for Responses and Codex (which requires `instructions`).
 *
 * An assistant message becomes its items in part order: reasoning (only from this same wire API
 * and only with `encrypted_content`: with `store: false` a reasoning item without it cannot be
 * resolved), one message item per text part (with its `phase`), one function_call per call (with
 * its item id). `withoutIds` (Codex: nothing is stored server-side) leaves every item id out.
 */
export class ResponsesEncoder implements NativeEncoder<ResponsesState> {
  constructor(
    private readonly reasoningProvider: string,
    private readonly withoutIds: boolean,
    private instructions = '',
    private readonly input: ResponseInputItem[] = [],
  ) {}

  push(m: Message): void {
    switch (m.role) {
      case 'system':
        this.instructions = this.instructions ? `${this.instructions}\n\n${m.content}` : m.content;
        break;
      case 'user':
        this.input.push(userItem(m));
        break;
      case 'tool':
        this.input.push({ type: 'function_call_output', call_id: m.tool_call_id, output: toolOutput(m) });
        break;
      case 'assistant':
        this.input.push(...this.assistantItems(m));
        break;
    }
  }

  clone(): ResponsesEncoder {
    return new ResponsesEncoder(this.reasoningProvider, this.withoutIds, this.instructions, [...this.input]);
  }

  view(): ResponsesState {
    return { instructions: this.instructions, input: this.input };
  }

  private assistantItems(m: AssistantMessage): ResponseInputItem[] {
    const ours = providerOf(m) === this.reasoningProvider;
    const items: ResponseInputItem[] = [];
    const id = (meta: Record<string, unknown> | undefined) => (ours && !this.withoutIds && typeof meta?.id === 'string' ? { id: meta.id } : {});
    for (const p of partsOf(m)) {
      if (p.type === 'reasoning') {
        if (!ours || !p.encrypted_content) continue;
        const summary = Array.isArray(p.meta?.summary)
          ? (p.meta.summary as { type: 'summary_text'; text: string }[])
          : p.text
            ? [{ type: 'summary_text' as const, text: p.text }]
            : [];
        const item = { type: 'reasoning', id: this.withoutIds ? undefined : typeof p.meta?.id === 'string' ? p.meta.id : '', summary, encrypted_content: p.encrypted_content };
        if (this.withoutIds) delete item.id;
        items.push(item as ResponseInputItem);
      } else if (p.type === 'text') {
        const item: ResponseInputItem = { type: 'message', role: 'assistant', content: p.text };
        if (ours && typeof p.meta?.phase === 'string') (item as { phase?: unknown }).phase = p.meta.phase;
        items.push(item);
      } else {
        items.push({ type: 'function_call', call_id: p.id, name: p.name, arguments: p.args, ...id(p.meta) });
      }
    }
    return items;
  }
}

/** The image types Responses `input_image` accepts; other images stay a placeholder line. */
const RESPONSES_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * A `function_call_output`'s `output`: the text, or — when the result has images of an accepted
 * type — a content list of the text (which names each image) then one `input_image` per image as
 * a base64 data URL.
 */
export function toolOutput(m: ToolMessage): string | ResponseFunctionCallOutputItemList {
  const images = (m.images ?? []).filter((i) => RESPONSES_IMAGE_TYPES.has(i.media_type));
  if (images.length === 0) return m.content;
  return [
    ...(m.content !== '' ? [{ type: 'input_text' as const, text: m.content }] : []),
    ...images.map((i) => ({ type: 'input_image' as const, image_url: `data:${i.media_type};base64,${i.data}` })),
  ];
}

/**
 * A user message as an input message: its text, or — with images — a content list of one
 * `input_image` per image (a base64 data URL, `detail: auto`), then the `input_text`.
 */
function userItem(m: UserMessage): ResponseInputItem {
  const images = (m.images ?? []).filter((i) => RESPONSES_IMAGE_TYPES.has(i.media_type));
  if (images.length === 0) return { type: 'message', role: 'user', content: m.content };
  const content: ResponseInputContent[] = images.map((i) => ({ type: 'input_image', image_url: `data:${i.media_type};base64,${i.data}`, detail: 'auto' }));
  if (m.content !== '') content.push({ type: 'input_text', text: m.content });
  return { type: 'message', role: 'user', content };
}

export function toResponsesTools(tools: readonly ToolDefinition[]): FunctionTool[] {
  return tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.input_schema,
    // Keen's schemas are not written for strict mode (optional properties, open objects).
    strict: false,
  }));
}

type OutputPart = ResponseFunctionCallOutputItemList[number];
type ImagePart = Extract<OutputPart, { type: 'input_image' }>;

/** The `input_image` parts of the user messages and function_call_outputs in `input`, in request order (a plain loop: it runs per request). */
function outputImages(input: readonly ResponseInputItem[]): ImagePart[] {
  const images: ImagePart[] = [];
  for (const item of input) {
    if (item.type === 'message' && item.role === 'user' && Array.isArray(item.content)) {
      for (const p of item.content) if (p.type === 'input_image' && typeof p.image_url === 'string') images.push(p as ImagePart);
    }
    if (item.type !== 'function_call_output' || typeof item.output === 'string') continue;
    for (const p of item.output) if (p.type === 'input_image' && typeof p.image_url === 'string') images.push(p);
  }
  return images;
}

/**
 * The input items of one request within the API's request-level image limits (image-budget.ts):
 * the newest images stay (the cut moves in steps, for prompt caching), each older one becomes
 * an `input_text` with the placeholder.
 * Returns `input` itself when every image fits; otherwise copies only the items that change, so
 * the native history is never edited.
 */
export function withinImageLimits(input: readonly ResponseInputItem[], limits: ImageLimits = IMAGE_LIMITS['openai-responses']): readonly ResponseInputItem[] {
  const images = outputImages(input);
  // The base64 after the data URL's comma: its length is the size, its bytes what image-size reads.
  const cut = cutImages(limits, images, (p) => {
    const url = p.image_url!;
    return url.slice(url.indexOf(',') + 1);
  });
  if (cut.omitted === 0) return input;
  const dropped = new Set<object>(images.slice(0, cut.omitted));
  const placeholder: OutputPart = { type: 'input_text', text: cut.placeholder! };
  return input.map((item) => {
    if (item.type === 'message' && item.role === 'user' && Array.isArray(item.content)) {
      if (!item.content.some((p) => dropped.has(p))) return item;
      return { ...item, content: item.content.map((p) => (dropped.has(p) ? placeholder : p)) } as ResponseInputItem;
    }
    if (item.type !== 'function_call_output' || typeof item.output === 'string' || !item.output.some((p) => dropped.has(p))) return item;
    return { ...item, output: item.output.map((p) => (dropped.has(p) ? placeholder : p)) };
  });
}
