import http from 'node:http';
const srv = http.createServer((req, res) => { console.log('REQ', req.method, req.url); req.resume(); req.on('end', () => { res.writeHead(200, {'content-type':'text/event-stream'}); res.end('data: ' + JSON.stringify({candidates:[{content:{role:'model',parts:[{text:'x'}]},finishReason:'STOP',index:0}],usageMetadata:{promptTokenCount:1,candidatesTokenCount:1,totalTokenCount:2}}) + '\n\n'); }); });
await new Promise(r => srv.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${srv.address().port}`;
const t0 = performance.now();
const [{ genkit }, { googleAI }, { logger }, tracing] = await Promise.all([import('genkit'), import('@genkit-ai/google-genai'), import('genkit/logging'), import('genkit/tracing')]);
tracing.disableGenkitOTelInitialization();
const t1 = performance.now();
const ai = genkit({ plugins: [googleAI({ apiKey: 'k', baseUrl: url })] });
const times = [];
for (let i = 0; i < 3; i++) { const t = performance.now(); const { stream, response } = ai.generateStream({ model: googleAI.model('gemini-x'), messages: [{ role: 'user', content: [{ text: 'hi' }] }], tools: [ai.dynamicTool({ name: 't'+i, description: 'd', inputJsonSchema: { type: 'object', properties: {} } })], returnToolRequests: true }); for await (const _ of stream) {} await response; times.push(Math.round(performance.now() - t)); }
console.log('import', Math.round(t1 - t0), 'first calls', times.join(','));
srv.close(); process.exit(0);
