/**
 * An ACP prompt as the text Keen sends: text blocks as they are, an embedded resource (an editor's
 * `@file`, possibly an unsaved buffer) as a fenced block named by its URI, a resource link as a
 * line naming the file so the model can read it with its tools. Pure.
 */
import type * as acp from '@agentclientprotocol/sdk';

/** What a prompt held that Keen cannot send (one line each), beside the text it can. */
export interface PromptText {
  text: string;
  unsupported: string[];
}

function pathOf(uri: string): string {
  return uri.startsWith('file://') ? decodeURIComponent(uri.slice('file://'.length)) : uri;
}

export function promptText(blocks: readonly acp.ContentBlock[]): PromptText {
  const parts: string[] = [];
  const unsupported: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        parts.push(b.text);
        break;
      case 'resource_link':
        parts.push(`[file: ${pathOf(b.uri)}]`);
        break;
      case 'resource':
        if ('text' in b.resource) parts.push(`<file path="${pathOf(b.resource.uri)}">\n${b.resource.text}\n</file>`);
        else unsupported.push(`binary resource ${pathOf(b.resource.uri)}`);
        break;
      default:
        unsupported.push(`${b.type} content`);
        break;
    }
  }
  return { text: parts.join('\n\n'), unsupported };
}
