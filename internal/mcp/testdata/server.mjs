// An MCP server built with the official TypeScript SDK
// (@modelcontextprotocol/sdk), stateless Streamable HTTP, for a Toolstream
// tool whose contract says mcp: {url: ...}. It requires Authorization:
// Bearer $TS_TOKEN, prints {"port": N} on its first line, then one line
// {"tool": ..., "key": ...} per call it runs (the idempotency key from
// _meta and from the Idempotency-Key header).
// Run with node's working directory at testdata/js (where node_modules is).
import { createRequire } from 'node:module';
import http from 'node:http';

const require = createRequire(process.cwd() + '/');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { z } = require('zod');

function build(header) {
  const server = new McpServer({ name: 'ts-orders', version: '1.0.0' });
  server.registerTool('echo', {
    description: 'Echo the text.',
    inputSchema: { text: z.string() },
  }, async ({ text }, extra) => {
    const key = extra?._meta?.['dev.toolstream/idempotency-key'] ?? null;
    process.stdout.write(JSON.stringify({ tool: 'echo', key, header }) + '\n');
    return { content: [{ type: 'text', text }], structuredContent: { echo: text, key } };
  });
  server.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => {
    process.stdout.write(JSON.stringify({ tool: 'fail' }) + '\n');
    return { isError: true, content: [{ type: 'text', text: 'the order is locked; try another order' }] };
  });
  return server;
}

const srv = http.createServer(async (req, res) => {
  if (req.headers.authorization !== 'Bearer ' + process.env.TS_TOKEN) {
    res.writeHead(401).end('unauthorized');
    return;
  }
  const server = build(req.headers['idempotency-key'] ?? null);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => { transport.close(); server.close(); });
  await server.connect(transport);
  await transport.handleRequest(req, res);
});
srv.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: srv.address().port }) + '\n');
});
