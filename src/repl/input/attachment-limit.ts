/**
 * How much of an attachment the user's message takes: a file mention's head, an MCP resource's or
 * prompt's text. A leaf, so the prompt's path to its first key loads no file-access code with it.
 */
export const ATTACHMENT_MAX_BYTES = 200_000;
