/**
 * The part of the Anthropic SDK Keen uses: the base client and its Messages resource. The SDK's
 * default export (`Anthropic`) constructs every resource (beta, organisation, files, skills…) and
 * so pulls all of them into the bundle: 454 KB minified against 131 KB for these two. Loaded
 * lazily (one chunk) by anthropic.ts on the first request.
 */
import { BaseAnthropic, type ClientOptions } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';

export type { Messages };

/** A Messages API client on the SDK's base client (same options, retries, headers and errors). */
export function createMessagesClient(options: ClientOptions): Messages {
  return new Messages(new BaseAnthropic(options));
}
