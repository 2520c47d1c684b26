/**
 * An ACP prompt as the text Keen sends: text blocks as they are, an embedded resource (an editor's
 * `@file`, possibly an unsaved buffer) as a fenced block named by its URI, a resource link as a
 * line naming the file so the model can read it with its tools, an image block (when the model
 * takes images) as an image of the user message, checked like an attached file
 * (src/tools/image-file.ts). Pure but for {@link modelTakesImages}, which reads the config.
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { SessionFlags } from '../agent/flags.js';
import { applyEnvOverrides } from '../config/env-overrides.js';
import { loadConfig } from '../config/load.js';
import { keenHome } from '../config/paths.js';
import { resolveModel } from '../config/resolve.js';
import { isProjectTrusted } from '../config/trust.js';
import type { ToolResultImage } from '../core/message.js';
import { checkImageBytes, IMAGE_MAX_BYTES } from '../tools/image-file.js';

/** What a prompt held that Keen cannot send (one line each), beside the text and images it can. */
export interface PromptText {
  text: string;
  unsupported: string[];
  images: ToolResultImage[];
}

function pathOf(uri: string): string {
  return uri.startsWith('file://') ? decodeURIComponent(uri.slice('file://'.length)) : uri;
}

/**
 * `blocks` as text and images. `images`: whether the session's model takes images (`{ model }`
 * names it for the line when it does not); without it an image block is unsupported.
 */
export function promptText(blocks: readonly acp.ContentBlock[], images?: { takes: boolean; model: string }): PromptText {
  const parts: string[] = [];
  const unsupported: string[] = [];
  const attached: ToolResultImage[] = [];
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
      case 'image': {
        const name = `image ${attached.length + 1}${b.uri ? ` (${pathOf(b.uri)})` : ''}`;
        if (!images?.takes) {
          unsupported.push(`image content: model ${images?.model ?? 'of this session'} takes no images`);
          break;
        }
        // Base64 is 4 characters per 3 bytes: an oversized image is refused before it is decoded.
        if ((b.data.length * 3) / 4 > IMAGE_MAX_BYTES + 2) {
          unsupported.push(`${name}, which is over the ${IMAGE_MAX_BYTES / 1024 / 1024} MB the model APIs accept`);
          break;
        }
        const checked = checkImageBytes(name, Buffer.from(b.data, 'base64'), b.mimeType);
        // Read after "cannot send": `image 1, which is declared image/jpeg but …`.
        if ('problem' in checked) unsupported.push(`${name}, which${checked.problem.slice(name.length)}`);
        else attached.push(checked.image);
        break;
      }
      default:
        unsupported.push(`${b.type} content`);
        break;
    }
  }
  return { text: parts.join('\n\n'), unsupported, images: attached };
}

/**
 * Whether the model a session in `cwd` would open with takes images: what `initialize` advertises
 * as `promptCapabilities.image`. Reads the config (the project's only when already trusted, or
 * `--trust` / `--yolo` say so; nothing is recorded); a config that does not load says no.
 */
export function modelTakesImages(flags: SessionFlags, cwd: string, env: NodeJS.ProcessEnv): boolean {
  try {
    const home = keenHome(env);
    const projectTrusted = Boolean(flags.trust || flags.yolo) || isProjectTrusted(home, cwd);
    const config = applyEnvOverrides(loadConfig(home, cwd, { projectTrusted }).config, env);
    return resolveModel(config, flags, env, home).info.images === true;
  } catch {
    return false;
  }
}
