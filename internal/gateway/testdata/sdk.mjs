// Drives the gateway with the official SDKs (openai 6, @anthropic-ai/sdk 1)
// as a user's program would, and prints what they saw in each scenario as
// one JSON object, by scenario.
// Run with node's working directory at testdata/js (where node_modules is):
//   node /abs/path/gateway/testdata/sdk.mjs SCENARIO...
// Environment: GATEWAY_URL (http://host:port), GATEWAY_KEY, and for the
// resume scenario STREAM_ID and STARTING_AFTER.
import { createRequire } from 'node:module';

const require = createRequire(process.cwd() + '/');
const OpenAI = require('openai').default ?? require('openai');
const AnthropicMod = require('@anthropic-ai/sdk');
const Anthropic = AnthropicMod.default ?? AnthropicMod;

const url = process.env.GATEWAY_URL;
const apiKey = process.env.GATEWAY_KEY;
const openai = new OpenAI({ apiKey, baseURL: url + '/v1', maxRetries: 0 });
const anthropic = new Anthropic({ apiKey, baseURL: url, maxRetries: 0 });
const messages = [{ role: 'user', content: 'weather in SF?' }];

async function collect(stream) {
  const events = [];
  for await (const ev of stream) events.push(ev);
  return events;
}

async function failure(fn) {
  try {
    await fn();
    return { ok: true };
  } catch (err) {
    // OpenAI's SDK keeps the body's "error" member, Anthropic's the whole body.
    return { status: err.status, name: err.constructor.name, type: err.error?.error?.type ?? err.error?.type, message: err.message };
  }
}

const scenarios = {
  'chat-stream': async () => ({ events: await collect(await openai.chat.completions.create({ model: 'weather-chat', messages, stream: true })) }),
  'responses-stream': async () => ({ events: await collect(await openai.responses.create({ model: 'weather-responses', input: 'weather in SF?', stream: true })) }),
  'messages-stream': async () => ({ events: await collect(await anthropic.messages.create({ model: 'weather-messages', max_tokens: 100, messages, stream: true })) }),
  'chat-whole': async () => ({ answer: await openai.chat.completions.create({ model: 'weather-chat', messages }) }),
  'responses-whole': async () => ({ answer: await openai.responses.create({ model: 'weather-responses', input: 'hi' }) }),
  'messages-whole': async () => ({ answer: await anthropic.messages.create({ model: 'weather-messages', max_tokens: 100, messages }) }),
  'wrong-key': async () => ({
    openai: await failure(() => new OpenAI({ apiKey: 'wrong', baseURL: url + '/v1', maxRetries: 0 }).chat.completions.create({ model: 'weather-chat', messages })),
    anthropic: await failure(() => new Anthropic({ apiKey: 'wrong', baseURL: url, maxRetries: 0 }).messages.create({ model: 'weather-messages', max_tokens: 10, messages })),
  }),
  'upstream-error': async () => ({
    openai: await failure(() => openai.responses.create({ model: 'overloaded', input: 'hi', stream: true })),
    anthropic: await failure(() => anthropic.messages.create({ model: 'overloaded', max_tokens: 10, messages, stream: true })),
  }),
  // The models the gateway routes to, in each SDK's shape.
  'models': async () => {
    const ids = [];
    for await (const m of openai.models.list()) ids.push(m.id);
    const aids = [];
    for await (const m of anthropic.models.list()) aids.push(m.id);
    return { openai: ids, anthropic: aids, one: (await openai.models.retrieve('openai/gpt-test')).id,
      missing: await failure(() => openai.models.retrieve('nope')) };
  },
  'embeddings': async () => {
    const r = await openai.embeddings.create({ model: 'openai/embed-test', input: 'hi', encoding_format: 'float' });
    return { embedding: r.data[0].embedding, model: r.model };
  },
  // Paths the gateway does not serve: the SDK's own error classes.
  'not-found': async () => ({
    openai: await failure(() => openai.get('/nothing/here')),
    anthropic: await failure(() => anthropic.get('/v1/nothing')),
    method: await failure(() => openai.get('/chat/completions')),
  }),
  'resume': async () => ({
    events: await collect(await openai.responses.retrieve(process.env.STREAM_ID, { stream: true, starting_after: Number(process.env.STARTING_AFTER) })),
  }),
};

const out = {};
for (const name of process.argv.slice(2)) {
  const fn = scenarios[name];
  if (!fn) {
    console.error('unknown scenario', name);
    process.exit(2);
  }
  out[name] = await fn();
}
process.stdout.write(JSON.stringify(out) + '\n');
