// The Documentation page's client examples as plain text, for a deployment at `base`; its loader
// highlights them on the server (lib/highlight.server.ts). Streamable HTTP (`/mcp`) first; the
// older HTTP+SSE transport (`/sse`) is shown apart, for clients that only speak it.

export const pythonExample = (base: string) => `import asyncio
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

SERVER_URL = "${base}/YOUR_PROXY_ID/mcp"
HEADERS = {"Authorization": "Bearer YOUR_API_KEY"}

async def main():
    async with streamablehttp_client(SERVER_URL, headers=HEADERS) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            print([tool.name for tool in tools.tools])
            result = await session.call_tool("echo", {"message": "Hello from Python"})
            print(result.content)

asyncio.run(main())`;

export const typescriptExample = (base: string) => `import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const transport = new StreamableHTTPClientTransport(new URL("${base}/YOUR_PROXY_ID/mcp"), {
  requestInit: { headers: { Authorization: \`Bearer \${process.env.SWITCHBOARD_API_KEY}\` } },
});

const client = new Client({ name: "my-app", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
console.log(tools.map((t) => t.name));

const result = await client.callTool({ name: "echo", arguments: { message: "Hello from TypeScript" } });
console.log(result.content);
await client.close();`;

export const assistantExample = (base: string) =>
  `claude mcp add --transport http my-server ${base}/YOUR_PROXY_ID/mcp \\
  --header "Authorization: Bearer YOUR_API_KEY"`;

/** The same assistant on the older HTTP+SSE transport. */
export const sseAssistantExample = (base: string) =>
  `# HTTP+SSE is deprecated in MCP: only for a client that cannot speak Streamable HTTP
claude mcp add --transport sse my-server ${base}/YOUR_PROXY_ID/sse \\
  --header "Authorization: Bearer YOUR_API_KEY"`;
