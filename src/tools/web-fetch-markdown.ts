import TurndownService from 'turndown';

let service: TurndownService | undefined;

/** HTML → Markdown (turndown), without scripts, styles and other non-content elements. */
export function htmlToMarkdown(html: string): string {
  if (!service) {
    service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
    service.remove(['script', 'style', 'noscript', 'iframe', 'template', 'svg', 'head'] as unknown as TurndownService.Filter);
  }
  return service
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
