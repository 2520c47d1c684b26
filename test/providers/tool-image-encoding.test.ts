/**
 * The per-wire encoding of tool-result images, pure: accepted types become image blocks after the
 * text, other types stay only the placeholder line the text already holds; an output pruned at
 * compaction loses its images with its text; the registry copies a tool's images onto its message.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { applyPrunePlan } from '../../src/compaction/prune.js';
import type { ToolMessage } from '../../src/core/message.js';
import { toolResultBlock as anthropicResult } from '../../src/providers/anthropic-wire.js';
import { toolResultBlock as converseResult } from '../../src/providers/bedrock-wire.js';
import { toolOutput } from '../../src/providers/openai-responses-items.js';
import { estimateMessage, IMAGE_TOKENS } from '../../src/tokens/token-estimator.js';
import { createToolRegistry, defineTool } from '../../src/tools/registry.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64');

const result = (images: ToolMessage['images'], content = 'shot [image: x]'): ToolMessage => ({ role: 'tool', tool_call_id: 't1', name: 'snap', content, images });

describe('tool-result images per wire', () => {
  it('a type the API does not take stays the placeholder text only', () => {
    const svg = result([{ media_type: 'image/svg+xml', data: SVG }]);
    expect(anthropicResult(svg)).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'shot [image: x]' });
    expect(converseResult(svg, 'anthropic.claude-sonnet-4-5')).toEqual({ toolResult: { toolUseId: 't1', content: [{ text: 'shot [image: x]' }] } });
    expect(toolOutput(svg)).toBe('shot [image: x]');
  });

  it('empty text with an image sends the image alone (Anthropic, Responses) or after the no-output line (Bedrock)', () => {
    const png = result([{ media_type: 'image/png', data: PNG }], '');
    expect(anthropicResult(png)).toEqual({ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] });
    const converse = converseResult(png, 'anthropic.claude-sonnet-4-5');
    expect(converse.toolResult?.content?.[0]).toEqual({ text: '(no output)' });
    expect(Buffer.from(converse.toolResult?.content?.[1]?.image?.source?.bytes as Uint8Array).toString('base64')).toBe(PNG);
    expect(toolOutput(png)).toEqual([{ type: 'input_image', image_url: `data:image/png;base64,${PNG}` }]);
  });

  it('an error result keeps its images and its error flag', () => {
    const failed = { ...result([{ media_type: 'image/jpeg', data: '/9j/4AAQ' }]), is_error: true };
    const block = anthropicResult(failed) as { is_error?: boolean; content: unknown[] };
    expect(block.is_error).toBe(true);
    expect(block.content).toHaveLength(2);
  });

  it('an output pruned at compaction drops its images with its text', () => {
    const history = [result([{ media_type: 'image/png', data: PNG }])];
    const [pruned] = applyPrunePlan(history, [{ index: 0, tool_call_id: 't1', artifact: 3, content: '[artifact#3: snap output]' }]);
    expect(pruned).toEqual({ role: 'tool', tool_call_id: 't1', name: 'snap', content: '[artifact#3: snap output]', artifact_ref: 3 });
    expect(history[0].images).toHaveLength(1);
  });

  it("the registry puts a tool's images on its ToolMessage", async () => {
    const snap = defineTool({
      name: 'snap',
      description: 'd',
      schema: z.object({}),
      mutating: false,
      run: async () => ({ content: 'shot', images: [{ mimeType: 'image/png', data: PNG }] }),
    });
    const message = await createToolRegistry([snap]).execute(
      { id: 'c1', name: 'snap', args: '{}' },
      { cwd: '/', signal: new AbortController().signal, permissions: { check: async () => 'deny' } },
    );
    expect(message).toEqual({ role: 'tool', tool_call_id: 'c1', name: 'snap', content: 'shot', images: [{ media_type: 'image/png', data: PNG }] });
  });

  it('the context estimate counts an image as a flat image cost, never its base64 as text', () => {
    const big = 'A'.repeat(400_000);
    const without = estimateMessage(result(undefined));
    expect(estimateMessage(result([{ media_type: 'image/png', data: big }]))).toBe(without + IMAGE_TOKENS);
    expect(
      estimateMessage(
        result([
          { media_type: 'image/png', data: PNG },
          { media_type: 'image/png', data: PNG },
        ]),
      ),
    ).toBe(without + 2 * IMAGE_TOKENS);
  });
});
