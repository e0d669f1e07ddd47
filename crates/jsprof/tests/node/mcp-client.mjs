// Drives `jsprof mcp` (stdio) or `jsprof serve`'s /mcp (streamable HTTP) with the official MCP
// TypeScript SDK client, as an editor or agent CLI would. Reads a plan on stdin:
//   {"transport": {"stdio": {"command": "...", "args": [...]}} | {"http": {"url": "...", "headers": {...}}},
//    "steps": [{"op": "listTools"} | {"op": "callTool", "name", "arguments"} | {"op": "pageAll", "name", "arguments"}
//              | {"op": "listResources"} | {"op": "readResource", "uri"} | {"op": "listPrompts"}
//              | {"op": "getPrompt", "name", "arguments"}]}
// An argument value {"$ref": [step, key, key, ...]} is replaced by that path in an earlier step's
// result (an agent reading one answer to ask the next question). Prints one JSON array: each
// step's result, or {"error": message} when the SDK throws (a protocol error or a refused
// connection). Calls may wait up to 10 minutes: a debug build on a busy machine is slow, and the
// server's own per-call cap is what the tests check.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const plan = JSON.parse(Buffer.concat(chunks).toString("utf8"));

let transport;
if (plan.transport.stdio) {
  transport = new StdioClientTransport({ ...plan.transport.stdio, stderr: "inherit" });
} else {
  transport = new StreamableHTTPClientTransport(new URL(plan.transport.http.url), {
    requestInit: { headers: plan.transport.http.headers ?? {} },
  });
}

const results = [];
const client = new Client({ name: "jsprof-tests", version: "1.0.0" });
const slow = { timeout: 600_000 };
try {
  await client.connect(transport);
} catch (e) {
  console.log(JSON.stringify([{ error: String(e?.message ?? e) }]));
  process.exit(0);
}

function resolve(v) {
  if (Array.isArray(v)) return v.map(resolve);
  if (v && typeof v === "object") {
    if (Array.isArray(v.$ref)) {
      const [step, ...path] = v.$ref;
      let at = results[step];
      for (const k of path) at = at?.[k];
      if (at === undefined) throw new Error(`$ref ${JSON.stringify(v.$ref)} names nothing`);
      return at;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
  }
  return v;
}

function listAt(doc, path) {
  let at = doc;
  for (const k of path.split(".")) at = at[k];
  return at;
}

for (const step of plan.steps) {
  try {
    const args = resolve(step.arguments ?? {});
    switch (step.op) {
      case "listTools": results.push(await client.listTools()); break;
      case "listResources": results.push(await client.listResources()); break;
      case "readResource": results.push(await client.readResource({ uri: step.uri })); break;
      case "listPrompts": results.push(await client.listPrompts()); break;
      case "getPrompt": results.push(await client.getPrompt({ name: step.name, arguments: args })); break;
      case "callTool": results.push(await client.callTool({ name: step.name, arguments: args }, undefined, slow)); break;
      case "pageAll": {
        // Follows next_cursor to the end: every item, the pages' sizes, the totals stated.
        const items = [], pages = [];
        let cursor, first;
        for (;;) {
          const r = await client.callTool({ name: step.name, arguments: cursor ? { ...args, cursor } : args }, undefined, slow);
          if (r.isError) { results.push(r); break; }
          const doc = r.structuredContent;
          first ??= doc;
          items.push(...listAt(doc, doc.page.list));
          pages.push({ returned: doc.page.returned, total: doc.page.total, offset: doc.page.offset, bytes: JSON.stringify(doc).length });
          cursor = doc.page.next_cursor;
          if (!cursor) { results.push({ first, items, pages }); break; }
          if (pages.length > 10000) throw new Error("paging does not end");
        }
        break;
      }
      default: throw new Error(`unknown op ${step.op}`);
    }
  } catch (e) {
    results.push({ error: String(e?.message ?? e), code: e?.code });
  }
}
await client.close();
console.log(JSON.stringify(results));
