import { randomBytes, randomUUID } from "node:crypto";
import { defaultPrefix, TOOLSET_TEXT, type ToolsetInput, type ToolsetView } from "~/shared/toolsets.js";
import { AppError } from "../../errors.js";
import type { Viewer } from "../auth/viewer.js";
import { keyReaches } from "../api-keys/api-keys.js";
import type { Source, ToolsetMemberRef } from "../runtime/runner.js";
import { TOOLSET_TOKEN_ENV, toolsetTokenHash } from "../api-keys/toolset-token.js";
import { restartRow } from "../deployments/owner-actions.js";
import { listUserDeployments, reserveDeployment, setWarnOnly, type DeploymentRow, type ServerRef } from "../deployments/kinds.js";
import { ownedDeployment } from "../deployments/owner-actions.js";
import { deploymentView, isConnection, isToolset, reachableRows, type DeploymentDeps } from "../deployments/service.js";
import { deployingOwner, orgViewOf, type OrgReach, type Reach } from "../orgs/accounts.js";

// Toolsets (docs/product.md#toolsets): several of a user's deployments and connections behind one
// Switchboard URL. A toolset is a deployment of its own (URL, keys, OAuth for clients, tool
// selection, playground, request log) whose server is runtime/links/toolset-link.ts: it reaches each
// member at its gateway with the toolset's credential, a token that opens only these members of
// this owner (features/gateway/admission). Members are referred to by their deployment's id; one
// that is stopped or removed is simply gone from the toolset until its owner edits it. An
// organisation's toolset (made by its admins, `owner`: its slug) holds the organisation's own
// deployments and connections only, as a person's holds only theirs.

type Toolset = Extract<Source, { kind: "toolset" }>;

const memberName = (r: DeploymentRow) => (isConnection(r) ? (r.source as { name: string }).name : r.serverRef);

export function toolsetView(
  deps: Pick<DeploymentDeps, "config">,
  r: DeploymentRow,
  rows: DeploymentRow[],
  v?: Viewer,
  org: OrgReach | null = null,
): ToolsetView {
  const src = r.source as Toolset;
  return {
    ...deploymentView(deps.config, r, v, org),
    name: src.name,
    members: src.members.map((m) => {
      const row = rows.find((x) => x.id === m.deployment_id);
      return {
        deployment_id: m.deployment_id,
        kind: row && isConnection(row) ? ("connection" as const) : ("deployment" as const),
        prefix: m.prefix,
        name: row ? memberName(row) : TOOLSET_TEXT.memberGone,
        tools: m.tools,
        status: row?.status ?? null,
      };
    }),
  };
}

/** The members asked for, each one of the owner's own deployments or connections (`rows`), with distinct prefixes. */
function membersOf(v: Viewer, input: ToolsetInput, rows: DeploymentRow[]): ToolsetMemberRef[] {
  const out: ToolsetMemberRef[] = [];
  for (const m of input.members) {
    const id = (m.deployment_id ?? m.connection_id)!;
    const row = rows.find((r) => r.id === id);
    // Another user's deployment is not revealed: it is not found, as a missing one.
    if (!row || !keyReaches(v, { kind: row.serverKind as ServerRef["kind"], ref: row.serverRef }))
      throw new AppError("not_found", TOOLSET_TEXT.memberNotFound);
    if (isToolset(row)) throw new AppError("validation_failed", TOOLSET_TEXT.memberIsToolset);
    if (out.some((x) => x.deployment_id === id)) throw new AppError("validation_failed", TOOLSET_TEXT.duplicateMember);
    const prefix = m.prefix ?? defaultPrefix(memberName(row));
    if (out.some((x) => x.prefix === prefix)) throw new AppError("conflict", TOOLSET_TEXT.prefixTaken(prefix));
    out.push({ deployment_id: id, prefix, tools: m.tools ? [...new Set(m.tools)].sort() : null });
  }
  return out;
}

export async function createToolset(deps: DeploymentDeps, v: Viewer, input: ToolsetInput): Promise<ToolsetView> {
  const owner = await deployingOwner(deps.db, v, input.owner);
  const rows = await listUserDeployments(deps.db, owner.id);
  const members = membersOf(v, input, rows);
  const id = randomUUID();
  const token = `sbt_${id}_${randomBytes(24).toString("base64url")}`;
  const max = deps.config.TOOLSETS_PER_USER;
  const source: Toolset = { kind: "toolset", name: input.name, members, token_hash: toolsetTokenHash(token) };
  const result = await reserveDeployment(
    deps.db,
    { maxToolsets: max },
    {
      id,
      userId: owner.id,
      serverKind: "toolset",
      serverRef: input.name,
      source,
      secrets: deps.box.seal({ [TOOLSET_TOKEN_ENV]: token }),
      // used only at its first creation: after that it keeps the address it had
      proxyId: randomBytes(16).toString("hex"),
    },
    deps.resources,
  );
  if (!result.ok) {
    if (result.reason === "connection_limit") throw new AppError("plan_limit", TOOLSET_TEXT.tooMany(max));
    throw new AppError("conflict", TOOLSET_TEXT.nameTaken);
  }
  // Its members' definitions are pinned where they run; the toolset warns of changes rather than
  // withholding them a second time (its owner can turn that on).
  await setWarnOnly(deps.db, { userId: owner.id, serverKind: "toolset", serverRef: input.name }, true);
  if (result.replaced) await deps.lifecycle.stop(result.replaced, { keepRow: true });
  await deps.lifecycle.launch(result.row);
  return toolsetView(deps, result.row, rows, v, owner.org);
}

/** A key limited to some servers reaches the toolsets it names (`toolset:<name>`), no other. */
const reaches = (v: Viewer, r: DeploymentRow) => keyReaches(v, { kind: "toolset", ref: r.serverRef });

/** The viewer's toolsets and their organisations'. */
export async function listToolsets(deps: DeploymentDeps, v: Viewer): Promise<ToolsetView[]> {
  const all = await reachableRows(deps.db, v);
  const rows = all.map((x) => x.row);
  return all
    .filter(({ row: r }) => isToolset(r) && reaches(v, r))
    .map(({ row, org }) =>
      toolsetView(
        deps,
        row,
        rows.filter((x) => x.userId === row.userId),
        v,
        org,
      ),
    );
}

/**
 * The viewer's toolset (or their organisation's: `use` to see it, `manage` to change it) with its
 * owner's deployments, else not found (another user's is never revealed).
 */
export async function ownToolset(
  deps: DeploymentDeps,
  v: Viewer,
  id: string,
  reach: Reach = "manage",
): Promise<{ row: DeploymentRow; rows: DeploymentRow[] }> {
  const row = await ownedDeployment(deps.db, v, id, reach, TOOLSET_TEXT.notFound);
  if (!isToolset(row) || !reaches(v, row)) throw new AppError("not_found", TOOLSET_TEXT.notFound);
  return { row, rows: await listUserDeployments(deps.db, row.userId) };
}

/** One toolset as the viewer sees it (a member sees an organisation's). */
export async function viewToolset(deps: DeploymentDeps, v: Viewer, id: string): Promise<ToolsetView> {
  const { row, rows } = await ownToolset(deps, v, id, "use");
  return toolsetView(deps, row, rows, v, await orgViewOf(deps.db, v.id, row.userId));
}

/** New members (and prefixes, and tool choices): the toolset restarts with them in place (same URL, keys, log). */
export async function updateToolset(deps: DeploymentDeps, v: Viewer, id: string, input: ToolsetInput): Promise<ToolsetView> {
  const { row, rows } = await ownToolset(deps, v, id);
  const src = row.source as Toolset;
  if (input.name !== src.name) throw new AppError("validation_failed", TOOLSET_TEXT.renamed);
  const source: Toolset = { ...src, members: membersOf(v, input, rows) };
  return toolsetView(deps, await restartRow(deps, v, row, { source }), rows, v, await orgViewOf(deps.db, v.id, row.userId));
}

export async function deleteToolset(deps: DeploymentDeps, v: Viewer, id: string): Promise<void> {
  const { row } = await ownToolset(deps, v, id);
  await deps.lifecycle.stop(row.id);
}
