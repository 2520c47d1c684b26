import { startBedrockFake } from '../test/fakes/bedrock-fake.ts';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED='true';
process.env.AWS_ACCESS_KEY_ID='AKIDFAKE'; process.env.AWS_SECRET_ACCESS_KEY='secret'; process.env.AWS_REGION='us-east-1';
process.env.AWS_CONFIG_FILE='/nonexistent/c'; process.env.AWS_SHARED_CREDENTIALS_FILE='/nonexistent/x'; process.env.AWS_EC2_METADATA_DISABLED='true';
const fake = await startBedrockFake();
const { BedrockRuntimeClient, ConverseStreamCommand } = await import('@aws-sdk/client-bedrock-runtime');
const { NodeHttpHandler } = await import('@smithy/node-http-handler');
const mk = (extra: any = {}) => new BedrockRuntimeClient({ endpoint: fake.url, requestHandler: new NodeHttpHandler(), maxAttempts: 1, ...extra });
const input = { modelId: 'amazon.nova-pro-v1:0', messages: [{ role: 'user' as const, content: [{ text: 'hi' }] }] };
async function tryIt(label: string, client: any, signal?: AbortSignal) {
  try {
    const r = await client.send(new ConverseStreamCommand(input), { abortSignal: signal });
    for await (const ev of r.stream!) { /* */ }
    console.log(label, 'OK');
  } catch (e: any) {
    console.log(label, '=>', e?.name, '|', e?.code, '|', e?.$fault, e?.$metadata?.httpStatusCode, '|', String(e?.message).slice(0, 200), '| retries', e?.$metadata?.attempts, e?.constructor?.name);
  }
}
fake.enqueue({ error: { status: 400, message: 'Input is too long for requested model.' } });
await tryIt('validation', mk());
fake.enqueue({ error: { status: 429, message: 'Too many requests, please wait before trying again.' } });
await tryIt('throttle', mk());
fake.enqueue({ error: { status: 403, type: 'ExpiredTokenException', message: 'The security token included in the request is expired' } });
await tryIt('expired', mk());
fake.enqueue({ error: { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' } });
await tryIt('unrecognized', mk());
fake.enqueue({ steps: [{ text: 'a' }, { cut: true }] });
await tryIt('cut', mk());
fake.enqueue({ steps: [{ text: 'a' }, { delayMs: 2000 }, { text: 'b' }] });
const ac = new AbortController(); setTimeout(() => ac.abort(), 200);
await tryIt('abort-mid', mk(), ac.signal);
fake.enqueue({ delayMs: 2000, steps: [{ text: 'a' }] });
const ac2 = new AbortController(); setTimeout(() => ac2.abort(), 200);
await tryIt('abort-before', mk(), ac2.signal);
await tryIt('refused', new BedrockRuntimeClient({ endpoint: 'http://127.0.0.1:1', requestHandler: new NodeHttpHandler(), maxAttempts: 1 }));
const saveK = process.env.AWS_ACCESS_KEY_ID; delete process.env.AWS_ACCESS_KEY_ID; delete process.env.AWS_SECRET_ACCESS_KEY;
await tryIt('nocreds', mk());
process.env.AWS_ACCESS_KEY_ID = saveK; process.env.AWS_SECRET_ACCESS_KEY='secret';
delete process.env.AWS_REGION;
await tryIt('noregion', mk());
await tryIt('badprofile', mk({ profile: 'nope', region: 'us-east-1' }));
process.env.AWS_REGION='us-east-1';
fake.enqueue({ error: { status: 429, message: 'slow down' } }, { steps: [{ text: 'ok' }] });
const t = Date.now(); await tryIt('throttle-retry', mk({ maxAttempts: 3 })); console.log('ms', Date.now() - t);
await fake.close();
