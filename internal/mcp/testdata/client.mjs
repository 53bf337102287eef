// Drives Toolstream's MCP server with the official TypeScript SDK
// (@modelcontextprotocol/sdk) as a user's program would, and prints what
// it saw in each scenario as one JSON object, by scenario.
// Run with node's working directory at testdata/js (where node_modules is):
//   node /abs/path/internal/mcp/testdata/client.mjs SCENARIO...
// Environment: MCP_URL (http://host:port/mcp), KEY_A (tenant acme), KEY_B
// (tenant globex).
import { createRequire } from 'node:module';

const require = createRequire(process.cwd() + '/');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

async function connect(key) {
  const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
    requestInit: { headers: key ? { Authorization: 'Bearer ' + key } : {} },
  });
  const client = new Client({ name: 'toolstream-ts-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function listAll(client) {
  const tools = [];
  let cursor, pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    pages++;
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return { pages, tools };
}

function failure(e) {
  return { name: e?.constructor?.name, code: e?.code, message: String(e?.message ?? e) };
}

const scenarios = {
  async list() {
    const c = await connect(process.env.KEY_A);
    const out = await listAll(c);
    out.protocolVersion = c.transport?.protocolVersion ?? null;
    await c.close();
    return out;
  },
  async call() {
    const c = await connect(process.env.KEY_A);
    const res = await c.callTool({ name: 'weather', arguments: { location: 'Paris' } });
    await c.close();
    return res;
  },
  async invalid() {
    const c = await connect(process.env.KEY_A);
    const res = await c.callTool({ name: 'weather', arguments: { city: 'Paris' } });
    await c.close();
    return res;
  },
  async unknown() {
    const c = await connect(process.env.KEY_A);
    try {
      const res = await c.callTool({ name: 'payroll', arguments: {} });
      return { result: res };
    } catch (e) {
      return failure(e);
    } finally {
      await c.close();
    }
  },
  async approval() {
    const c = await connect(process.env.KEY_A);
    const progress = [];
    const res = await c.callTool(
      { name: 'refund', arguments: { order_id: 'A1' } },
      undefined,
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true, timeout: 90000 },
    );
    await c.close();
    return { result: res, progress };
  },
  async proxied() {
    const c = await connect(process.env.KEY_A);
    const first = await c.callTool({ name: 'ts__echo', arguments: { text: 'hello' }, _meta: { 'dev.toolstream/idempotency-key': 'echo-1' } });
    const again = await c.callTool({ name: 'ts__echo', arguments: { text: 'hello' }, _meta: { 'dev.toolstream/idempotency-key': 'echo-1' } });
    const failed = await c.callTool({ name: 'ts__fail', arguments: {} });
    await c.close();
    return { first, again, failed };
  },
  async otherTenant() {
    const c = await connect(process.env.KEY_B);
    const out = await listAll(c);
    try {
      out.call = await c.callTool({ name: 'weather', arguments: { location: 'Paris' } });
    } catch (e) {
      out.call = failure(e);
    }
    await c.close();
    return out;
  },
  async noKey() {
    try {
      await connect('');
      return { connected: true };
    } catch (e) {
      return failure(e);
    }
  },
};

const out = {};
for (const name of process.argv.slice(2)) {
  out[name] = await scenarios[name]();
}
process.stdout.write(JSON.stringify(out));
