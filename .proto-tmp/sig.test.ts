import { it } from 'vitest';
it('x', async () => {
  const b = [...process.listeners('SIGINT'), ...process.listeners('SIGTERM')];
  await import('genkit');
  const a = [...process.listeners('SIGINT'), ...process.listeners('SIGTERM')];
  console.log(b.map(f => f.name + ':' + String(f).slice(0, 80)), a.map(f => f.name + ':' + String(f).slice(0, 120)));
});
