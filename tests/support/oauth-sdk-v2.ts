// The official MCP TypeScript SDK v2 client (@modelcontextprotocol/client) as an SdkKit: the same
// journeys as the v1 SDK. It takes the whole authorization response in finishAuth and checks its
// `state` and `iss` (RFC 9207) itself.
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/client";
import type { McpClientLike, SdkKit } from "./oauth-client.js";

export const SDK_V2: SdkKit = {
  label: "@modelcontextprotocol/client (v2)",
  client: () => new Client({ name: "oauth-test-v2", version: "1.0.0" }) as unknown as McpClientLike,
  transport: (url, provider, log) =>
    new StreamableHTTPClientTransport(new URL(url), {
      authProvider: provider as unknown as OAuthClientProvider,
      ...(log ? { fetch: log.fetch } : {}),
    }),
  finish: (t, callback) => (t as StreamableHTTPClientTransport).finishAuth(callback.searchParams),
  unauthorized: (e) => e instanceof UnauthorizedError,
};
