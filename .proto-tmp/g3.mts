import { startGeminiFake } from '../test/fakes/gemini-fake.ts';
const fake = await startGeminiFake();
fake.setResponder(() => ({ steps: [{ text: 'x' }] }));
const disable = process.argv[2] === 'off';
let t = performance.now();
const [{ genkit }, { googleAI }, tracing] = await Promise.all([import('genkit'), import('@genkit-ai/google-genai'), import('genkit/tracing')]);
const imp = performance.now() - t;
if (disable) tracing.disableGenkitOTelInitialization();
const ai = genkit({ plugins: [googleAI({ apiKey: 'k', baseUrl: fake.url })] });
const times: number[] = [];
for (let i = 0; i < 4; i++) {
  t = performance.now();
  const { stream, response } = ai.generateStream({ model: googleAI.model('gemini-x'), messages: [{ role: 'user', content: [{ text: 'hi' }] }], returnToolRequests: true });
  for await (const _ of stream) {}
  await response;
  times.push(Math.round(performance.now() - t));
}
console.log(disable ? 'otel off' : 'otel on', 'import', Math.round(imp), 'calls', times.join(','), 'SIGTERM', process.listenerCount('SIGTERM'));
await fake.close();
process.exit(0);
