import { createHash } from "node:crypto";

// A toolset's credential at its members' gateway (features/toolsets/toolsets.ts makes it, the
// gateway's admission checks it): `sbt_<toolset id>_<secret>`. The toolset's row keeps its hash
// (`source.token_hash`) and the token itself sealed in its secrets, under this name, for the runner.

export const TOOLSET_TOKEN_ENV = "SWITCHBOARD_TOOLSET_TOKEN";
export const TOOLSET_TOKEN = /^sbt_([0-9a-f-]{36})_[A-Za-z0-9_-]{32}$/;
export const toolsetTokenHash = (token: string) => createHash("sha256").update(token).digest("hex");
