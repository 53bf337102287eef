// Makes the calls of the CALLS environment variable (a JSON list) with the
// official SDKs (openai 6, @anthropic-ai/sdk 1), one after another, as a
// user's program would, and prints what each saw as one JSON list.
// A call: {api: "chat"|"responses"|"messages", key, model, stream,
// maxRetries}. Each result: {ok, events (a stream's count), text, or the
// error's status, class name, type, code, and its Retry-After and
// x-should-retry headers}.
// Run with node's working directory at testdata/js (where node_modules is).
import { createRequire } from 'node:module';

const require = createRequire(process.cwd() + '/');
const OpenAI = require('openai').default ?? require('openai');
const AnthropicMod = require('@anthropic-ai/sdk');
const Anthropic = AnthropicMod.default ?? AnthropicMod;

const url = process.env.GATEWAY_URL;
const calls = JSON.parse(process.env.CALLS);
const messages = [{ role: 'user', content: 'weather in SF?' }];

async function one(c) {
  const opts = { apiKey: c.key, maxRetries: c.maxRetries ?? 0, timeout: 30000 };
  try {
    let res;
    if (c.api === 'messages') {
      const anthropic = new Anthropic({ ...opts, baseURL: url });
      res = await anthropic.messages.create({ model: c.model, max_tokens: 100, messages, stream: !!c.stream });
    } else if (c.api === 'responses') {
      const openai = new OpenAI({ ...opts, baseURL: url + '/v1' });
      res = await openai.responses.create({ model: c.model, input: 'weather in SF?', stream: !!c.stream });
    } else {
      const openai = new OpenAI({ ...opts, baseURL: url + '/v1' });
      res = await openai.chat.completions.create({ model: c.model, messages, stream: !!c.stream });
    }
    if (c.stream) {
      let events = 0;
      for await (const _ of res) events++;
      return { ok: true, events };
    }
    return { ok: true, id: res.id };
  } catch (err) {
    const h = err.headers;
    const get = (k) => (h && (typeof h.get === 'function' ? h.get(k) : h[k])) ?? null;
    return {
      ok: false, status: err.status ?? null, name: err.constructor.name,
      // OpenAI's SDK keeps the body's "error" member, Anthropic's the whole body.
      type: err.type ?? err.error?.error?.type ?? err.error?.type ?? null, code: err.code ?? null,
      retryAfter: get('retry-after'), shouldRetry: get('x-should-retry'), message: String(err.message),
    };
  }
}

const out = [];
for (const c of calls) out.push(await one(c));
process.stdout.write(JSON.stringify(out) + '\n');
