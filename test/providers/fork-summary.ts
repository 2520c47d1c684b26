/** What a compaction's nested request sends, seen at an adapter's fake. */
import type { ProviderConversation } from '../../src/core/provider.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { turn } from '../kit/events.js';

/**
 * Forks `conv` (its last turn answered), asks the fork for `ask`, then takes the parent's next
 * turn; returns the two request bodies, the fork's first.
 */
export async function forkSummary(conv: ProviderConversation, fake: ScriptedServer, ask: string): Promise<{ childBody: any; parentBody: any }> {
  const child = conv.fork();
  child.appendUserText(ask);
  fake.enqueue({ steps: [{ text: 'summary' }] }, { steps: [{ text: 'parent reply' }] });
  const childEnd = (await turn(child)).at(-1);
  const childBody = fake.requests.at(-1)?.body;
  const parentEnd = (await turn(conv)).at(-1);
  if (childEnd?.type !== 'turn_end' || parentEnd?.type !== 'turn_end') throw new Error(`a turn failed: ${JSON.stringify([childEnd, parentEnd])}`);
  return { childBody, parentBody: fake.requests.at(-1)?.body };
}
