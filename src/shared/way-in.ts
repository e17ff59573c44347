import type { Unreachable } from "./public-address.js";

// The ways in for a visitor (Log in and Sign up where they are needed, the docs) and the hand-off
// to a client (a key made from a server page, the connectors' reach, the operator's PUBLIC_URL)
// (docs/product.md#layout, #server-pages, #connect-a-client). The links' own words are the spec's
// (AUTH_TEXT.logIn, AUTH_TEXT.signUp).

export const WAY_IN_TEXT = {
  /** the home page's invitation, beside Log in and Sign up */
  homeInvite: "An account is free: your keys stay encrypted, and each deployment gets its own URL. How to connect a client is in the",
  /** the Deployment panel, signed out */
  deployInvite: "to deploy this server with your own keys.",
  /** the Connect card and the owned server's panel, signed out */
  connectInvite: "to run it here and get a URL for any MCP client.",
  footerInvite: "New here?",
  docsLink: "Documentation",
  /** a server page's pointer to the docs */
  docsHint: "New to MCP? How to connect a client is in the",
  /** the API keys page reached from a server page */
  returnsTo: (server: string) => `Once generated, you go back to ${server} with the key filled in its connection snippets.`,
  backTo: (server: string) => `Back to ${server}`,
  /** a server page right after a key was made there */
  newKeyTitle: (name: string) => `Your new key "${name}" is filled in below.`,
  newKeyOnce: "It is shown this once: copy what you need now. Reloading the page puts the placeholder back.",
  installCursor: "Add to Cursor",
  installVscode: "Add to VS Code",
  installHint: "Opens the app on this computer and asks you to confirm.",
  installNeedsKey: "Create a key for this server to get a one-click install link.",
  plainLabel: "Other clients",
  plainWhere: "Any MCP client: the address and the header",
  /** a connector tab when the URL is not one the app can reach from its cloud */
  unreachable: (app: string, url: string, why: Exclude<Unreachable, null>) =>
    why === "not-https"
      ? `${app} cannot use ${url}: connectors need an https address.`
      : `${app} cannot reach ${url}: it is not a public address, and connectors call it from the app's own servers.`,
  unreachableFix:
    "Set PUBLIC_URL to a public https address that reaches this instance (a domain behind TLS, or a tunnel to this machine), then restart it.",
  /** admins, when the page was reached on another host than PUBLIC_URL's */
  otherHost: (seen: string, publicUrl: string) =>
    `This page was reached at ${seen}, but PUBLIC_URL is ${publicUrl}: deployment URLs, e-mail links and OAuth use PUBLIC_URL, so they may not work from here.`,
  otherHostFix: "Set PUBLIC_URL to the address people use, then restart.",
  /** the start-up log when PUBLIC_URL is unset */
  publicUrlUnset: (derived: string) =>
    `PUBLIC_URL is not set: using ${derived}. Deployment URLs, e-mail links and OAuth are built on it; set PUBLIC_URL to the address people use (https for Claude.ai and ChatGPT connectors).`,
} as const;
