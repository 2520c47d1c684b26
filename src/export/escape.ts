/**
 * HTML escaping for the exported page. Everything a transcript holds (prompts, model text, tool
 * arguments and outputs, ids, paths) is untrusted: it goes into the page only through these.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe inside an element or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** `text` cut to `max` characters, with a note of how much was left out. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… ${(text.length - max).toLocaleString('en-US')} more characters not shown`;
}
