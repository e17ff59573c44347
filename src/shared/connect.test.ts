import { describe, expect, it } from "vitest";
import { connectConfigs, npxArgs } from "./connect.js";

describe("connect configurations", () => {
  const keys = [{ key: "GitHub Personal Access Token", env_var: "GITHUB_PERSONAL_ACCESS_TOKEN", description: "repo scope" }];

  it("builds Claude Desktop, Claude Code, Cursor and VS Code configs from the npx command and keys", () => {
    const c = connectConfigs("github", "npx -y @modelcontextprotocol/server-github", keys)!;
    expect(JSON.parse(c.claudeDesktop)).toEqual({
      mcpServers: { github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_PERSONAL_ACCESS_TOKEN: "<your GitHub Personal Access Token>" } } },
    });
    expect(c.claudeCode).toBe('claude mcp add github -e GITHUB_PERSONAL_ACCESS_TOKEN="<your GitHub Personal Access Token>" -- npx -y @modelcontextprotocol/server-github');
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
