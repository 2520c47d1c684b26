import { startGeminiFake } from '../test/fakes/gemini-fake.ts';
import { createGenkitRuntime } from '../src/llm/providers/genkit-runtime.ts';
const fake = await startGeminiFake();
const rt = await createGenkitRuntime({ apiKey: 'k', baseUrl: fake.url });
console.log('importMs', rt.modules.importMs, process.listeners('SIGINT').length);
const ai = rt.ai;
async function tryIt(label: string, signal?: AbortSignal, ai2 = ai) {
  try {
    const { stream, response } = ai2.generateStream({ model: rt.modules.google.googleAI.model('gemini-test'), messages: [{ role: 'user', content: [{ text: 'hi' }] }], returnToolRequests: true, abortSignal: signal });
    response.catch(() => {});
    for await (const c of stream) console.log(label, 'chunk', c.text);
    const r = await response;
    console.log(label, 'OK', r.text, r.finishReason);
  } catch (e: any) {
    console.log(label, '=>', e?.name, '|', e?.status, '|', e?.code, '|', String(e?.message).slice(0, 300), '| detail', JSON.stringify(e?.detail)?.slice(0, 200), '| meta', JSON.stringify(e?.responseMetadata), '| cause', e?.cause?.name, e?.cause?.code, e?.cause?.message);
  }
}
await tryIt('nothing');
fake.enqueue({ error: { status: 400, message: 'The input token count (2000000) exceeds the maximum number of tokens allowed (1048576).' } });
await tryIt('ctx');
fake.enqueue({ error: { status: 429, message: 'Resource has been exhausted (e.g. check quota).' } });
await tryIt('429');
fake.enqueue({ error: { status: 400, message: 'API key not valid. Please pass a valid API key.' } });
await tryIt('badkey');
fake.enqueue({ steps: [{ text: 'a' }, { cut: true }] });
await tryIt('cut');
fake.enqueue({ steps: [{ text: 'a' }, { delayMs: 2000 }, { text: 'b' }] });
const ac = new AbortController(); setTimeout(() => ac.abort(), 300);
await tryIt('abort-mid', ac.signal);
fake.enqueue({ delayMs: 2000, steps: [{ text: 'a' }] });
const ac2 = new AbortController(); setTimeout(() => ac2.abort(), 300);
await tryIt('abort-before', ac2.signal);
const rt2 = await createGenkitRuntime({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1' });
await tryIt('refused', undefined, rt2.ai);
fake.enqueue({ steps: [{ text: 'x' }], stopReason: 'max_tokens' });
await tryIt('maxtok');
await fake.close();
