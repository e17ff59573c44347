// The Documentation page's client examples as plain text, for a deployment at `base`; its loader
// highlights them on the server (lib/highlight.server.ts).

export const pythonExample = (base: string) => `# HTTP+SSE is deprecated in MCP: it keeps working here, but new code should use
# the /mcp URL (Streamable HTTP, MCP 2026-07-28 too) with mcp.client.streamable_http.
import asyncio
from mcp import ClientSession
from mcp.client.sse import sse_client

SERVER_URL = "${base}/YOUR_PROXY_ID/sse"
HEADERS = {"Authorization": "Bearer YOUR_API_KEY"}

async def main():
    async with sse_client(SERVER_URL, headers=HEADERS) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            print([tool.name for tool in tools.tools])
            result = await session.call_tool("echo", {"message": "Hello from Python"})
            print(result.content)

asyncio.run(main())`;

export const typescriptExample = (base: string) => `// HTTP+SSE is deprecated in MCP: it keeps working here, but new code should use the
// /mcp URL (Streamable HTTP, MCP 2026-07-28 too) with StreamableHTTPClientTransport.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

const headers = { Authorization: \`Bearer \${process.env.SWITCHBOARD_API_KEY}\` };
const transport = new SSEClientTransport(new URL("${base}/YOUR_PROXY_ID/sse"), {
  eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...init?.headers, ...headers } }) },
  requestInit: { headers },
});

const client = new Client({ name: "my-app", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
console.log(tools.map((t) => t.name));

const result = await client.callTool({ name: "echo", arguments: { message: "Hello from TypeScript" } });
console.log(result.content);
await client.close();`;

export const assistantExample = (base: string) =>
  `# --transport sse is deprecated; --transport http with the /mcp URL is the current one
claude mcp add --transport sse my-server ${base}/YOUR_PROXY_ID/sse \\
  --header "Authorization: Bearer YOUR_API_KEY"`;
