import { Link } from "react-router";
import { h2, h3, p } from "./doc-parts";

// The Documentation page's API Keys and OAuth section.

/** The two ways a client acts for you: an API key in a header, or OAuth with your approval. */
export function ApiKeysAndOAuth({ base, site }: { base: string; site: string }) {
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
