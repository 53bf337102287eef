// Drives the gateway's run mode with the official SDKs (openai 6,
// @anthropic-ai/sdk 1) as a user's program would, and prints what each
// saw as one JSON object: the answer's text, the run's status and id
// (Toolstream-Run), and the "toolstream" field (status, verdicts).
// Run with node's working directory at testdata/js (where node_modules is):
//   node /abs/path/gateway/testdata/run/sdk-run.mjs CLIENT
// CLIENT: chat-leave, chat-stream, chat-whole, chat-helper, responses-stream,
// responses-whole, responses-helper, responses-background,
// responses-background-cancel, responses-background-other, messages-stream,
// messages-whole.
// Environment: GATEWAY_URL, GATEWAY_KEY, RUN (Toolstream-Run), QUESTION,
// LEAVE_WHEN (chat-leave). Besides the text, each reports the usage the
// SDK read, the finish/stop reason and any tool calls; the stream clients
// also the types of events the SDK yielded that are not the API's (none
// is expected).
import { createRequire } from 'node:module';

const require = createRequire(process.cwd() + '/');
const OpenAI = require('openai').default ?? require('openai');
const AnthropicMod = require('@anthropic-ai/sdk');
const Anthropic = AnthropicMod.default ?? AnthropicMod;

const url = process.env.GATEWAY_URL;
const apiKey = process.env.GATEWAY_KEY;
const defaultHeaders = { 'Toolstream-Mode': 'run', 'Toolstream-Run': process.env.RUN };
const timeout = Number(process.env.SDK_TIMEOUT_MS || 600000);
const openai = new OpenAI({ apiKey, baseURL: url + '/v1', maxRetries: 0, defaultHeaders, timeout });
const anthropic = new Anthropic({ apiKey, baseURL: url, maxRetries: 0, defaultHeaders });
const question = process.env.QUESTION;
const messages = [{ role: 'user', content: question }];

const clients = {
  // Leaves mid-run: the request is aborted once the file LEAVE_WHEN exists
  // (the test makes it while a tool runs). The SDK ends a stream the
  // user aborted without an error.
  'chat-leave': async () => {
    const fs = await import('node:fs');
    const controller = new AbortController();
    const pending = openai.chat.completions.create({ model: 'fake-1', messages, stream: true }, { signal: controller.signal })
      .then(async (stream) => { let n = 0; for await (const _ of stream) n++; return `ended after ${n} chunks`; })
      .catch((err) => err.constructor.name);
    while (!fs.existsSync(process.env.LEAVE_WHEN)) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    return { left: await pending };
  },
  'chat-stream': async () => {
    const { data: stream, response } = await openai.chat.completions.create({ model: 'fake-1', messages, stream: true }).withResponse();
    let text = '', meta = null, chunks = 0, stop = null, usage = null, odd = [];
    const toolCalls = [];
    for await (const c of stream) {
      chunks++;
      if (c.object !== 'chat.completion.chunk') odd.push(String(c.object));
      for (const ch of c.choices) {
        text += ch.delta?.content ?? '';
        for (const tc of ch.delta?.tool_calls ?? []) toolCalls.push({ id: tc.id, name: tc.function?.name, arguments: tc.function?.arguments });
        if (ch.finish_reason) stop = ch.finish_reason;
      }
      if (c.usage) usage = { input: c.usage.prompt_tokens, output: c.usage.completion_tokens };
      if (c.toolstream) meta = c.toolstream;
    }
    return { text, meta, run: response.headers.get('toolstream-run'), chunks, stop, usage, toolCalls, odd };
  },
  'chat-whole': async () => {
    const { data, response } = await openai.chat.completions.create({ model: 'fake-1', messages }).withResponse();
    const m = data.choices[0].message;
    return { text: m.content, contentNull: m.content === null, meta: data.toolstream, run: response.headers.get('toolstream-run'),
      stop: data.choices[0].finish_reason, usage: { input: data.usage?.prompt_tokens, output: data.usage?.completion_tokens },
      toolCalls: (m.tool_calls ?? []).map((tc) => ({ id: tc.id, name: tc.function.name, arguments: tc.function.arguments })),
      status: response.headers.get('toolstream-run-status') };
  },
  // The SDK's stream helper, which accumulates the completion.
  'chat-helper': async () => {
    const stream = openai.chat.completions.stream({ model: 'fake-1', messages });
    const c = await stream.finalChatCompletion();
    return { text: c.choices[0].message.content, stop: c.choices[0].finish_reason, meta: c.toolstream ?? null };
  },
  'responses-stream': async () => {
    const { data: stream, response } = await openai.responses.create({ model: 'fake-1', input: question, stream: true }).withResponse();
    let text = '', meta = null, usage = null, odd = [];
    for await (const ev of stream) {
      if (typeof ev.type !== 'string' || !ev.type.startsWith('response.')) odd.push(String(ev.type));
      if (ev.type === 'response.output_text.delta') text += ev.delta;
      if (ev.type === 'response.completed' || ev.type === 'response.incomplete') {
        meta = ev.response.toolstream;
        usage = { input: ev.response.usage?.input_tokens, output: ev.response.usage?.output_tokens };
      }
    }
    return { text, meta, run: response.headers.get('toolstream-run'), usage, odd };
  },
  // The SDK's stream helper: it throws on an event it does not know.
  'responses-helper': async () => {
    const stream = openai.responses.stream({ model: 'fake-1', input: question });
    let text = '';
    for await (const ev of stream) if (ev.type === 'response.output_text.delta') text += ev.delta;
    const r = await stream.finalResponse();
    return { text, final: r.output_text, meta: r.toolstream, usage: { input: r.usage?.input_tokens, output: r.usage?.output_tokens } };
  },
  'responses-whole': async () => {
    const { data, response } = await openai.responses.create({ model: 'fake-1', input: question }).withResponse();
    return { text: data.output_text, meta: data.toolstream, run: response.headers.get('toolstream-run'),
      usage: { input: data.usage?.input_tokens, output: data.usage?.output_tokens } };
  },
  // Background mode (responses.create background:true): the answer comes
  // at once, queued; retrieve polls until the run ended; retrieve with
  // stream:true, starting_after resumes the answer's events.
  'responses-background': async () => {
    const created = await openai.responses.create({ model: 'fake-1', input: question, background: true });
    let r = created, polls = 0;
    const deadline = Date.now() + 60000;
    while ((r.status === 'queued' || r.status === 'in_progress') && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 20));
      r = await openai.responses.retrieve(created.id);
      polls++;
    }
    const resumed = [];
    const stream = await openai.responses.retrieve(created.id, { stream: true, starting_after: 2 });
    for await (const ev of stream) resumed.push(`${ev.sequence_number}:${ev.type}`);
    return { id: created.id, created: created.status, background: created.background, status: r.status, text: r.output_text, meta: r.toolstream,
      usage: { input: r.usage?.input_tokens, output: r.usage?.output_tokens }, polls, resumed };
  },
  // Cancels a background response whose model never answers.
  'responses-background-cancel': async () => {
    const created = await openai.responses.create({ model: 'fake-1', input: question, background: true });
    const cancelled = await openai.responses.cancel(created.id);
    const r = await openai.responses.retrieve(created.id);
    return { id: created.id, created: created.status, cancelled: cancelled.status, status: r.status };
  },
  // Another key polls and cancels BG_ID: the errors it gets.
  'responses-background-other': async () => {
    const other = new OpenAI({ apiKey: process.env.OTHER_KEY, baseURL: url + '/v1', maxRetries: 0, timeout });
    const errs = [];
    for (const f of [() => other.responses.retrieve(process.env.BG_ID), () => other.responses.cancel(process.env.BG_ID)]) {
      try {
        const r = await f();
        errs.push({ status: 200, name: 'none', message: r.status });
      } catch (err) {
        errs.push({ status: err.status, name: err.constructor.name, message: err.message, type: err.type ?? null });
      }
    }
    return { errors: errs };
  },
  'messages-stream': async () => {
    const stream = anthropic.messages.stream({ model: 'fake-1', max_tokens: 256, messages });
    const odd = [];
    stream.on('streamEvent', (ev) => { if (!['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'].includes(ev.type)) odd.push(String(ev.type)); });
    const m = await stream.finalMessage();
    const { response } = await stream.withResponse();
    return { text: m.content.filter((b) => b.type === 'text').map((b) => b.text).join(''), stop: m.stop_reason, run: response.headers.get('toolstream-run'),
      meta: m.toolstream ?? null, usage: { input: m.usage.input_tokens, output: m.usage.output_tokens }, odd };
  },
  // A follow-up as a chat program sends it: the conversation so far (the
  // question, the answer it got: PREVIOUS) and the new question
  // (FOLLOWUP), under the same Toolstream-Run.
  'messages-followup': async () => {
    const conv = [...messages, { role: 'assistant', content: process.env.PREVIOUS }, { role: 'user', content: process.env.FOLLOWUP }];
    const { data, response } = await anthropic.messages.create({ model: 'fake-1', max_tokens: 256, messages: conv }).withResponse();
    return { text: data.content.filter((b) => b.type === 'text').map((b) => b.text).join(''), stop: data.stop_reason, meta: data.toolstream, run: response.headers.get('toolstream-run') };
  },
  // A run whose upstream answers an error: what the SDK's error holds.
  'chat-error': async () => {
    try {
      await openai.chat.completions.create({ model: 'fake-1', messages });
      return { text: 'no error' };
    } catch (err) {
      return { error: { status: err.status, name: err.constructor.name, retryAfter: err.headers?.get?.('retry-after') ?? null, requestID: err.requestID ?? null, message: err.message } };
    }
  },
  'chat-stream-error': async () => {
    try {
      const stream = await openai.chat.completions.create({ model: 'fake-1', messages, stream: true });
      for await (const _ of stream);
      return { text: 'no error' };
    } catch (err) {
      return { error: { status: err.status, name: err.constructor.name, retryAfter: err.headers?.get?.('retry-after') ?? null, requestID: err.requestID ?? null, message: err.message } };
    }
  },
  'messages-error': async () => {
    try {
      await anthropic.messages.create({ model: 'fake-1', max_tokens: 256, messages });
      return { text: 'no error' };
    } catch (err) {
      return { error: { status: err.status, name: err.constructor.name, retryAfter: err.headers?.get?.('retry-after') ?? null, requestID: err.requestID ?? null, message: err.message } };
    }
  },
  // Passthrough (no Toolstream-Mode): the program offers its own weather
  // tool and would run the call itself; EXECUTE, when set, is sent as
  // Toolstream-Execute.
  'chat-passthrough': async () => {
    const headers = { 'Toolstream-Run': process.env.RUN };
    if (process.env.EXECUTE) headers['Toolstream-Execute'] = process.env.EXECUTE;
    const client = new OpenAI({ apiKey, baseURL: url + '/v1', maxRetries: 0, defaultHeaders: headers });
    const tools = [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];
    const stream = await client.chat.completions.create({ model: 'fake-1', messages, tools, stream: true });
    const toolCalls = [];
    let stop = null;
    for await (const c of stream) {
      for (const ch of c.choices) {
        for (const tc of ch.delta?.tool_calls ?? []) if (tc.function?.name) toolCalls.push({ id: tc.id, name: tc.function.name });
        if (ch.finish_reason) stop = ch.finish_reason;
      }
    }
    return { toolCalls, stop };
  },
  'messages-whole': async () => {
    const { data, response } = await anthropic.messages.create({ model: 'fake-1', max_tokens: 256, messages }).withResponse();
    return { text: data.content.filter((b) => b.type === 'text').map((b) => b.text).join(''), stop: data.stop_reason, meta: data.toolstream, run: response.headers.get('toolstream-run'),
      usage: { input: data.usage.input_tokens, output: data.usage.output_tokens } };
  },
};

const fn = clients[process.argv[2]];
if (!fn) {
  console.error('unknown client ' + process.argv[2]);
  process.exit(2);
}
process.stdout.write(JSON.stringify(await fn()) + '\n');
