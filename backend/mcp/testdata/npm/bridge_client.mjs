// bridge_client.mjs connects to TinyElf's MCP bridge with the official
// TypeScript SDK client, lists the tools, makes the calls given as a JSON
// array of {name, arguments}, and prints one JSON object with the results
// (each with the progress messages it received).
//
//   node bridge_client.mjs URL TOKEN '[{"name":"sessions_search","arguments":{"query":"x"}}]'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, callsJSON] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "tinyelf-bridge-test", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const results = [];
for (const call of JSON.parse(callsJSON || "[]")) {
  const progress = [];
  const result = await client.callTool(call, undefined, {
    onprogress: (p) => progress.push(p.message ?? String(p.progress)),
  });
  results.push({ ...result, progress });
}
console.log(JSON.stringify({
  server: client.getServerVersion(),
  protocol: transport.protocolVersion,
  tools: tools.map((t) => ({ name: t.name, readOnly: t.annotations?.readOnlyHint ?? null })),
  results,
}));
await client.close();
