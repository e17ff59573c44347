// bench:gateway's reference floor: the smallest Streamable HTTP "server" that can answer the
// official SDK client - canned initialize, echo computed in place, no MCP server behind it, no
// checks. What the client and HTTP cost on their own; no real gateway can be faster.
import http from "node:http";

const port = Number(process.argv[2]);
const json = (res, status, body, headers = {}) => {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
};
http
  .createServer((req, res) => {
    if (req.method !== "POST") return json(res, 405, undefined);
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString());
      if (msg.id === undefined) return json(res, 202, undefined);
      if (msg.method === "initialize") {
        const result = {
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "floor", version: "1.0.0" },
        };
        return json(res, 200, { jsonrpc: "2.0", id: msg.id, result }, { "mcp-session-id": "floor" });
      }
      json(res, 200, {
        jsonrpc: "2.0",
        id: msg.id,
        result: { content: [{ type: "text", text: `Echo: ${msg.params.arguments.message}` }] },
      });
    });
  })
  .listen(port, "127.0.0.1");
