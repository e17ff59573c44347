import { ExternalLink } from "~/web/components/icons";
import { ApiKeysAndOAuth } from "./ApiKeysAndOAuth";
import { Code, h2, h3, p } from "./doc-parts";

// The Documentation page's text: what MCP is, using servers, API keys and OAuth, best practices
// and further reading; DOC_SECTIONS lists its sections for the page's "On this page".

/** The article's sections, in order: their ids are the sections' anchors. */
export const DOC_SECTIONS = [
  { id: "what-is-mcp", title: "What is MCP?" },
  { id: "using-mcp-servers", title: "Using MCP Servers" },
  { id: "api-keys-and-oauth", title: "API Keys and OAuth" },
  { id: "best-practices", title: "Best Practices" },
  { id: "additional-resources", title: "Additional Resources" },
];

/** `code`: the client examples, highlighted (client-examples.ts); `base`: the site's public URL. */
export function DocsArticle({
  base,
  site,
  code,
}: {
  base: string;
  site: string;
  code: { assistant: string; python: string; typescript: string; sse: string };
}) {
  return (
    <article className="min-w-0 max-w-3xl">
      <h1 className="text-4xl font-extrabold tracking-tight">Documentation</h1>
      <p className={p}>Everything you need to connect AI assistants, code editors and your own programs to MCP servers.</p>

      <section className="mt-12" aria-labelledby="what-is-mcp">
        <h2 id="what-is-mcp" className={h2}>
          What is MCP?
        </h2>
        <p className={p}>
          The Model Context Protocol (MCP) is an open standard that lets AI applications talk to external tools and data in one consistent
          way. An <strong>MCP server</strong> exposes tools (actions the model can call), resources (data it can read) and prompts (reusable
          templates); an <strong>MCP client</strong>, such as an AI assistant or a code editor, discovers them and calls them on the model's
          behalf.
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
          Every server you deploy gets its own address, <code className="break-all font-mono">{base}/YOUR_PROXY_ID/mcp</code>, shown on the
          server page once it runs. It speaks MCP&apos;s <strong>Streamable HTTP</strong> transport, for clients of every MCP revision, the
          stateless 2026-07-28 revision included; it is what the server page&apos;s connect snippets use. Send one of your API keys with the{" "}
          <code className="font-mono">mcp</code> scope as the header <code className="font-mono">Authorization: Bearer YOUR_API_KEY</code>.
        </p>

        <h3 className={h3}>With an AI assistant</h3>
        <p className={p}>Add the server with your assistant&apos;s connect command, pointing it at the server&apos;s /mcp URL:</p>
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
            Choose the type <strong>http</strong> (Streamable HTTP).
          </li>
          <li>
            Paste the server URL ending in <code className="font-mono">/mcp</code>, for example{" "}
            <code className="break-all font-mono">{base}/YOUR_PROXY_ID/mcp</code>, and add the header{" "}
            <code className="font-mono">Authorization: Bearer YOUR_API_KEY</code>.
          </li>
          <li>
            Save, then verify that the server shows a <strong>green indicator</strong> and lists its tools.
          </li>
        </ol>
        <p className={p}>The code editor supports up to 40 tools per MCP server; deploy focused servers rather than one with everything.</p>
        <p className={p}>
          The server page&apos;s Cursor and VS Code tabs also offer one-click install links once you have made a key there.
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

        <h3 className={h3}>The older HTTP+SSE transport</h3>
        <p className={p} data-testid="sse-deprecated">
          <strong>Deprecated:</strong> beside <code className="font-mono">/mcp</code>, every deployment also answers at{" "}
          <code className="break-all font-mono">{base}/YOUR_PROXY_ID/sse</code>, MCP&apos;s older HTTP+SSE transport, which the protocol has
          deprecated. It keeps working here for a client that speaks nothing else (an editor&apos;s type <strong>sse</strong>, the
          SDKs&apos; SSE client), with the same API key header; prefer <code className="font-mono">/mcp</code> everywhere else.
        </p>
        <Code html={code.sse} label="Connect command on the older transport" />
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
  );
}
