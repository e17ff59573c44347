import { ExternalLink } from "lucide-react";
import { Link } from "react-router";
import type { Route } from "./+types/docs";
import { highlight } from "../lib/highlight.server";

export function meta({ matches }: Route.MetaArgs) {
  const site = (matches[0]?.data as { site?: { name: string } } | undefined)?.site?.name ?? "Switchboard";
  return [
    { title: `Documentation - ${site}` },
    {
      name: "description",
      content: "What MCP is, how to connect AI assistants, code editors and your own code to hosted MCP servers, and best practices.",
    },
  ];
}

const pythonExample = (base: string) => `# HTTP+SSE is deprecated in MCP: it keeps working here, but new code should use
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

const typescriptExample = (base: string) => `// HTTP+SSE is deprecated in MCP: it keeps working here, but new code should use the
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

const assistantExample = (base: string) =>
  `# --transport sse is deprecated; --transport http with the /mcp URL is the current one
claude mcp add --transport sse my-server ${base}/YOUR_PROXY_ID/sse \\
  --header "Authorization: Bearer YOUR_API_KEY"`;

export function loader({ context }: Route.LoaderArgs) {
  const base = context.config.PUBLIC_URL;
  return {
    base,
    site: context.config.SITE_NAME,
    code: {
      assistant: highlight(assistantExample(base), "bash"),
      python: highlight(pythonExample(base), "python"),
      typescript: highlight(typescriptExample(base), "typescript"),
    },
  };
}

const sections = [
  { id: "what-is-mcp", title: "What is MCP?" },
  { id: "using-mcp-servers", title: "Using MCP Servers" },
  { id: "api-keys-and-oauth", title: "API Keys and OAuth" },
  { id: "best-practices", title: "Best Practices" },
  { id: "additional-resources", title: "Additional Resources" },
];

function Code({ html, label }: { html: string; label: string }) {
  return (
    <pre
      tabIndex={0}
      className="mt-3 overflow-x-auto rounded-lg border border-slate-200 bg-slate-50 p-4 text-sm leading-relaxed dark:border-slate-800 dark:bg-slate-900"
      aria-label={label}
    >
      <code className="hljs font-mono" dangerouslySetInnerHTML={{ __html: html }} />
    </pre>
  );
}

const h2 = "scroll-mt-24 text-2xl font-bold tracking-tight";
const h3 = "mt-8 text-lg font-semibold";
const p = "mt-3 leading-7 text-slate-700 dark:text-slate-300";

export default function Docs({ loaderData }: Route.ComponentProps) {
  const { base, code, site } = loaderData;
  return (
    <div className="mx-auto grid max-w-7xl gap-10 px-4 py-12 sm:px-6 lg:grid-cols-[14rem_1fr]">
      <nav aria-label="On this page" className="hidden lg:block">
        <div className="sticky top-24">
          <p className="text-xs font-semibold uppercase tracking-wider text-slate-600 dark:text-slate-400">On this page</p>
          <ul className="mt-3 space-y-2 text-sm">
            {sections.map((s) => (
              <li key={s.id}>
                <a href={`#${s.id}`} className="text-slate-600 hover:text-indigo-600 dark:text-slate-400 dark:hover:text-indigo-400">
                  {s.title}
                </a>
              </li>
            ))}
          </ul>
        </div>
      </nav>
      <article className="min-w-0 max-w-3xl">
        <h1 className="text-4xl font-extrabold tracking-tight">Documentation</h1>
        <p className={p}>Everything you need to connect AI assistants, code editors and your own programs to MCP servers.</p>

        <section className="mt-12" aria-labelledby="what-is-mcp">
          <h2 id="what-is-mcp" className={h2}>
            What is MCP?
          </h2>
          <p className={p}>
            The Model Context Protocol (MCP) is an open standard that lets AI applications talk to external tools and data in one consistent
            way. An <strong>MCP server</strong> exposes tools (actions the model can call), resources (data it can read) and prompts
            (reusable templates); an <strong>MCP client</strong>, such as an AI assistant or a code editor, discovers them and calls them on
            the model's behalf.
          </p>
          <p className={p}>
            Instead of writing a custom integration for every service, you connect a client once to a server, and every tool that server
            offers becomes available to your assistant.
          </p>
        </section>

        <section className="mt-12" aria-labelledby="using-mcp-servers">
          <h2 id="using-mcp-servers" className={h2}>
            Using MCP Servers
          </h2>
          <p className={p}>
            Every server you deploy gets its own address. Use the <code className="font-mono">/sse</code> URL shown on the server page
            (Streamable HTTP clients can use the <code className="font-mono">/mcp</code> URL beside it) together with one of your API keys
            with the <code className="font-mono">mcp</code> scope.
          </p>
          <p className={p} data-testid="sse-deprecated">
            <strong>Deprecated:</strong> the <code className="font-mono">/sse</code> URL speaks MCP's HTTP+SSE transport, which the protocol
            has deprecated. It keeps working here, but prefer the <code className="font-mono">/mcp</code> URL: it speaks Streamable HTTP for
            clients of every MCP revision, the stateless 2026-07-28 revision included, and it is what the server page's connect snippets
            use.
          </p>

          <h3 className={h3}>With an AI assistant</h3>
          <p className={p}>Add the server with your assistant's connect command, pointing it at the server's /sse URL:</p>
          <Code html={code.assistant} label="Connect command" />

          <h3 className={h3}>With a code editor</h3>
          <ol className="mt-3 list-decimal space-y-2 pl-6 leading-7 text-slate-700 dark:text-slate-300">
            <li>
              Open <strong>Settings &gt; MCP</strong> in your editor.
            </li>
            <li>
              Click <strong>Add New MCP Server</strong> and give it a name.
            </li>
            <li>
              Choose the type <strong>sse</strong>.
            </li>
            <li>
              Paste the server URL ending in <code className="font-mono">/sse</code>, for example{" "}
              <code className="break-all font-mono">{base}/YOUR_PROXY_ID/sse</code>, and add the header{" "}
              <code className="font-mono">Authorization: Bearer YOUR_API_KEY</code>.
            </li>
            <li>
              Save, then verify that the server shows a <strong>green indicator</strong> and lists its tools.
            </li>
          </ol>
          <p className={p}>
            The code editor supports up to 40 tools per MCP server; deploy focused servers rather than one with everything.
          </p>

          <h3 className={h3}>From Python</h3>
          <p className={p}>
            With the official SDK (<code className="font-mono">pip install mcp</code>):
          </p>
          <Code html={code.python} label="Python client example" />

          <h3 className={h3}>From TypeScript</h3>
          <p className={p}>
            With the official SDK (<code className="font-mono">npm install @modelcontextprotocol/sdk</code>):
          </p>
          <Code html={code.typescript} label="TypeScript client example" />
        </section>

        <ApiKeysAndOAuth base={base} site={site} />

        <section className="mt-12" aria-labelledby="best-practices">
          <h2 id="best-practices" className={h2}>
            Best Practices
          </h2>
          <ul className="mt-3 list-disc space-y-2 pl-6 leading-7 text-slate-700 dark:text-slate-300">
            <li>
              <strong>Use HTTPS</strong> for every connection so keys and data are encrypted in transit.
            </li>
            <li>
              <strong>Authenticate every client</strong> with its own API key, and revoke keys you no longer use.
            </li>
            <li>
              <strong>Rate limit</strong> expensive tools so a runaway agent cannot exhaust your quotas.
            </li>
            <li>
              <strong>Monitor</strong> your servers' status, usage and logs to catch failures early.
            </li>
            <li>
              <strong>Keep servers updated</strong> to pick up security fixes and new protocol features.
            </li>
            <li>
              <strong>Protect your API keys</strong>: never commit them, keep them in environment variables or a secret store.
            </li>
            <li>
              <strong>Review your connected apps</strong> on the API keys page and revoke the ones you no longer use.
            </li>
          </ul>
        </section>

        <section className="mt-12" aria-labelledby="additional-resources">
          <h2 id="additional-resources" className={h2}>
            Additional Resources
          </h2>
          <ul className="mt-3 space-y-2">
            <li>
              <a
                href="https://modelcontextprotocol.io"
                target="_blank"
                rel="noopener noreferrer"
                className="inline-flex items-center gap-1 text-indigo-600 hover:underline dark:text-indigo-400"
              >
                Model Context Protocol documentation <ExternalLink className="h-3.5 w-3.5" aria-hidden />
              </a>
            </li>
            <li>
              <a
                href="https://modelcontextprotocol.io/specification"
                target="_blank"
                rel="noopener noreferrer"
                className="inline-flex items-center gap-1 text-indigo-600 hover:underline dark:text-indigo-400"
              >
                MCP specification <ExternalLink className="h-3.5 w-3.5" aria-hidden />
              </a>
            </li>
          </ul>
        </section>
      </article>
    </div>
  );
}

/** The two ways a client acts for you: an API key in a header, or OAuth with your approval. */
function ApiKeysAndOAuth({ base, site }: { base: string; site: string }) {
  return (
    <section className="mt-12" aria-labelledby="api-keys-and-oauth">
      <h2 id="api-keys-and-oauth" className={h2}>
        API Keys and OAuth
      </h2>
      <p className={p}>
        A client proves that it acts for you in one of two ways. Both reach the same deployment, with the same tools, resources and prompts.
      </p>

      <h3 className={h3}>With an API key</h3>
      <p className={p}>
        Create a key on the{" "}
        <Link to="/servers/apikeys" className="text-indigo-700 underline underline-offset-2 dark:text-indigo-300">
          API keys
        </Link>{" "}
        page with the <code className="font-mono">mcp</code> scope (the default) and send it as the header{" "}
        <code className="font-mono">Authorization: Bearer YOUR_API_KEY</code>, as in the examples above. This suits every client that lets
        you set a header: Claude Code, Cursor, VS Code and your own programs. An <code className="font-mono">mcp</code> key connects to your
        deployments and does nothing else: it cannot change your account, make keys or pay. Limit it to the deployments one client needs and
        give it an expiry; the <code className="font-mono">deploy</code> and <code className="font-mono">servers</code> scopes are for
        scripts that deploy or register servers.
      </p>

      <h3 className={h3}>With OAuth: Claude.ai, Claude Desktop and ChatGPT</h3>
      <p className={p}>
        Connectors in Claude.ai, Claude Desktop and ChatGPT cannot send a header. They sign in with OAuth instead: you give them the URL
        alone and approve them once on {site}.
      </p>
      <ol className="mt-3 list-decimal space-y-2 pl-6 leading-7 text-slate-700 dark:text-slate-300">
        <li>
          Deploy the server and copy its URL ending in <code className="font-mono">/mcp</code>, for example{" "}
          <code className="break-all font-mono">{base}/YOUR_PROXY_ID/mcp</code>.
        </li>
        <li>
          Add it as a custom connector. In Claude: <strong>Settings &gt; Connectors &gt; Add custom connector</strong>. In ChatGPT:{" "}
          <strong>Settings &gt; Apps &amp; Connectors</strong>, a new connector with OAuth authentication.
        </li>
        <li>
          Your browser opens {site}. Sign in if asked, check the app&apos;s name and <strong>the address its answer goes to</strong>, and
          the deployment it asks for, then press <strong>Approve</strong>.
        </li>
        <li>The client lists the server&apos;s tools. It renews its access by itself; you are not asked again.</li>
      </ol>
      <p className={p}>
        The access is for that one deployment only: it does not work on your other deployments or on the API. Every app you approved is
        listed under <strong>Connected apps</strong> on the API keys page, with when it was granted and last used; Revoke ends its access on
        its next request. Any MCP client that supports the MCP authorization flow connects the same way.
      </p>
    </section>
  );
}
