import { APIError } from "better-auth/api";
import { ORG_TEXT, type InvitationInfo, type OrgDetail, type OrgRole, type OrgView } from "~/shared/orgs.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Auth } from "../auth/auth.js";
import type { Viewer } from "../auth/viewer.js";
import { dropOrgAccount, orgAccountId } from "./accounts.js";
import {
  deleteOrg,
  heldByAccount,
  membersDeploy,
  saveMembersDeploy,
  invitationById,
  isUsername,
  memberById,
  membersOf,
  orgBySlug,
  orgsOf,
  pendingInvitations,
  roleIn,
  type OrgRow,
} from "./repo.js";

// Organisations (docs/product.md#organisations) on better-auth's organization plugin: it keeps
// organisations, members and invitations and checks what it knows of (who may invite or remove an
// owner, the last owner, single use, the invited address). Switchboard adds its namespace rule,
// its texts, the role each action needs (http/route-policy.ts) and the audit log.

export interface OrgDeps {
  db: Db;
  auth: Auth;
  /** before an organisation's account goes: its plan ends at its provider (billing's endForDeletedAccount) */
  endPlan?: (accountId: string) => Promise<void>;
  /** api-keys' KeyRevocations: every process forgets what it remembered of access */
  revocations?: { revoked(): Promise<void> };
}

/** What one action needs from the person asking. */
export type OrgAction = "read" | "invite" | "manage_members" | "change_roles" | "delete";

/** The role each action needs at least (owner > admin > member). */
const NEEDS: Record<OrgAction, OrgRole> = {
  read: "member",
  invite: "admin",
  manage_members: "admin",
  change_roles: "owner",
  delete: "owner",
};
const RANK: Record<string, number> = { member: 1, admin: 2, owner: 3 };

export function allows(role: string | null, action: OrgAction): boolean {
  return role !== null && (RANK[role] ?? 0) >= RANK[NEEDS[action]]!;
}

/** The plugin's refusals in the site's words. */
const PLUGIN_TEXT: Record<string, [AppError["code"], string]> = {
  ORGANIZATION_SLUG_ALREADY_TAKEN: ["conflict", ORG_TEXT.slugTaken],
  ORGANIZATION_ALREADY_EXISTS: ["conflict", ORG_TEXT.slugTaken],
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION: ["forbidden", ORG_TEXT.mustVerify],
  ORGANIZATION_NOT_FOUND: ["not_found", ORG_TEXT.notFound],
  USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION: ["conflict", ORG_TEXT.alreadyMember],
  USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION: ["conflict", ORG_TEXT.alreadyMember],
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER: ["conflict", ORG_TEXT.lastOwner],
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER: ["conflict", ORG_TEXT.lastOwner],
  INVITATION_NOT_FOUND: ["not_found", ORG_TEXT.invitationGone],
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION: ["forbidden", ORG_TEXT.invitationGone],
  EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION: ["forbidden", ORG_TEXT.verifyToAccept],
  MEMBER_NOT_FOUND: ["not_found", ORG_TEXT.notMember],
};

/** Runs a plugin call; its refusals and the database's owner guard become the site's errors. */
async function plugin<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof APIError) {
      const code = (e.body as { code?: string } | undefined)?.code ?? "";
      const known = PLUGIN_TEXT[code];
      if (known) throw new AppError(known[0], known[1]);
      if (e.statusCode === 401 || e.statusCode === 403) throw new AppError("forbidden", ORG_TEXT.notAllowed);
      throw e;
    }
    // member_keep_an_owner (migration 0030): two owners stepping down at once.
    if ((e as { code?: string }).code === "23514" || /keeps at least one owner/.test(String((e as Error)?.message))) {
      throw new AppError("conflict", ORG_TEXT.lastOwner);
    }
    throw e;
  }
}

const iso = (d: Date) => d.toISOString();

/** A unique violation, however the adapter wrapped it (a slug or a name another claim took first). */
function isUniqueViolation(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x && depth < 4; x = (x as { cause?: unknown }).cause, depth++)
    if ((x as { code?: unknown }).code === "23505") return true;
  return false;
}

export class Orgs {
  constructor(private readonly deps: OrgDeps) {}

  /** The organisation and the viewer's role in it; 404 for anyone who is not a member (it does not say it exists). */
  async membership(viewer: Viewer, slug: string, action: OrgAction = "read"): Promise<{ org: OrgRow; role: string }> {
    const org = await orgBySlug(this.deps.db, slug);
    const role = org ? await roleIn(this.deps.db, org.id, viewer.id) : null;
    if (!org || role === null) throw new AppError("not_found", ORG_TEXT.notFound);
    if (!allows(role, action)) throw new AppError("forbidden", ORG_TEXT.notAllowed);
    return { org, role };
  }

  async list(viewer: Viewer): Promise<OrgView[]> {
    const rows = await orgsOf(this.deps.db, viewer.id);
    return rows.map((r) => ({ id: r.id, name: r.name, slug: r.slug, role: r.role, members: r.members, created_at: iso(r.createdAt) }));
  }

  async create(viewer: Viewer, headers: Headers, input: { name: string; slug: string }): Promise<OrgView> {
    if (!viewer.emailVerified) throw new AppError("forbidden", ORG_TEXT.mustVerify);
    const slug = input.slug.toLowerCase();
    // One namespace for people and organisations: `acme/weather` names one owner.
    if ((await isUsername(this.deps.db, slug)) || (await orgBySlug(this.deps.db, slug)))
      throw new AppError("conflict", ORG_TEXT.slugTaken, { field: "slug" });
    await plugin(() => this.deps.auth.api.createOrganization({ headers, body: { name: input.name, slug } })).catch((e: unknown) => {
      // The database's own namespace check (migration 0033): someone took the name at the same moment.
      if (isUniqueViolation(e)) throw new AppError("conflict", ORG_TEXT.slugTaken, { field: "slug" });
      throw e;
    });
    const org = await orgBySlug(this.deps.db, slug);
    if (!org) throw new AppError("internal", "Organisation not created");
    return { id: org.id, name: org.name, slug: org.slug, role: "owner", members: 1, created_at: iso(org.createdAt) };
  }

  async detail(viewer: Viewer, slug: string): Promise<OrgDetail> {
    const { org, role } = await this.membership(viewer, slug);
    const [members, invitations, deployable] = await Promise.all([
      membersOf(this.deps.db, org.id),
      pendingInvitations(this.deps.db, org.id),
      membersDeploy(this.deps.db, org.id),
    ]);
    return {
      members_deploy: deployable,
      id: org.id,
      name: org.name,
      slug: org.slug,
      role,
      members: members.length,
      created_at: iso(org.createdAt),
      members_list: members.map((m) => ({
        id: m.id,
        user_id: m.userId,
        username: m.username,
        name: m.name,
        // Addresses are for those who manage members.
        email: allows(role, "manage_members") || m.userId === viewer.id ? m.email : "",
        role: m.role,
        joined_at: iso(m.createdAt),
      })),
      invitations: allows(role, "invite")
        ? invitations.map((i) => ({
            id: i.id,
            email: i.email,
            role: i.role ?? "member",
            status: i.status,
            expires_at: iso(i.expiresAt),
            inviter: i.inviter,
            created_at: iso(i.createdAt),
          }))
        : [],
    };
  }

  async rename(viewer: Viewer, headers: Headers, slug: string, name: string) {
    const { org } = await this.membership(viewer, slug, "manage_members");
    await plugin(() => this.deps.auth.api.updateOrganization({ headers, body: { organizationId: org.id, data: { name } } }));
    return { org, from: org.name };
  }

  /** What the organisation lets its members do (admins): deploy and change its deployments, or only use them. */
  async setMembersDeploy(viewer: Viewer, slug: string, on: boolean) {
    const { org } = await this.membership(viewer, slug, "manage_members");
    await saveMembersDeploy(this.deps.db, org.id, on);
    // What was remembered of who may change what goes, as on a role change.
    await this.deps.revocations?.revoked();
    return { org };
  }

  async invite(viewer: Viewer, headers: Headers, slug: string, input: { email: string; role: OrgRole }) {
    const { org, role } = await this.membership(viewer, slug, "invite");
    // Only an owner makes owners (the plugin agrees; this says it in the site's words).
    if (input.role === "owner" && role !== "owner") throw new AppError("forbidden", ORG_TEXT.notAllowed);
    const members = await membersOf(this.deps.db, org.id);
    if (members.some((m) => m.email.toLowerCase() === input.email))
      throw new AppError("conflict", ORG_TEXT.alreadyMember, { field: "email" });
    const inv = await plugin(() =>
      this.deps.auth.api.createInvitation({
        headers,
        body: { email: input.email, role: input.role, organizationId: org.id, resend: true },
      }),
    );
    return { org, invitationId: (inv as { id: string }).id };
  }

  async cancelInvitation(viewer: Viewer, headers: Headers, slug: string, invitationId: string) {
    const { org } = await this.membership(viewer, slug, "invite");
    const inv = await invitationById(this.deps.db, invitationId);
    // The plugin cancels whatever it is given; only a pending invitation of this organisation is revoked.
    if (!inv || inv.organizationId !== org.id || inv.status !== "pending") throw new AppError("not_found", ORG_TEXT.invitationGone);
    await plugin(() => this.deps.auth.api.cancelInvitation({ headers, body: { invitationId } }));
    return { org, email: inv.email };
  }

  /** An invitation as its recipient sees it; any signed-in person holding the link sees whom it is for. */
  async invitation(viewer: Viewer, id: string): Promise<InvitationInfo> {
    const inv = await invitationById(this.deps.db, id);
    if (!inv) throw new AppError("not_found", ORG_TEXT.invitationGone);
    const valid = inv.status === "pending" && inv.expiresAt > new Date();
    const mine = inv.email.toLowerCase() === viewer.email.toLowerCase();
    return {
      id: inv.id,
      org: { name: inv.orgName, slug: inv.orgSlug },
      inviter: inv.inviter,
      // Someone else's link says only that it is not theirs.
      email: mine ? inv.email : maskEmail(inv.email),
      role: inv.role ?? "member",
      expires_at: iso(inv.expiresAt),
      valid,
    };
  }

  async accept(viewer: Viewer, headers: Headers, id: string) {
    const inv = await invitationById(this.deps.db, id);
    if (!inv || inv.status !== "pending" || inv.expiresAt <= new Date()) throw new AppError("not_found", ORG_TEXT.invitationGone);
    if (inv.email.toLowerCase() !== viewer.email.toLowerCase())
      throw new AppError("forbidden", ORG_TEXT.invitationOther(maskEmail(inv.email)));
    if (!viewer.emailVerified) throw new AppError("forbidden", ORG_TEXT.verifyToAccept);
    await plugin(() => this.deps.auth.api.acceptInvitation({ headers, body: { invitationId: id } }));
    return { orgId: inv.organizationId, slug: inv.orgSlug, name: inv.orgName, role: inv.role ?? "member" };
  }

  async decline(viewer: Viewer, headers: Headers, id: string) {
    const inv = await invitationById(this.deps.db, id);
    // The plugin does not look at the expiry when declining; a dead link is simply gone.
    if (!inv || inv.status !== "pending" || inv.expiresAt <= new Date()) throw new AppError("not_found", ORG_TEXT.invitationGone);
    if (inv.email.toLowerCase() !== viewer.email.toLowerCase())
      throw new AppError("forbidden", ORG_TEXT.invitationOther(maskEmail(inv.email)));
    await plugin(() => this.deps.auth.api.rejectInvitation({ headers, body: { invitationId: id } }));
    return { orgId: inv.organizationId };
  }

  async changeRole(viewer: Viewer, headers: Headers, slug: string, memberId: string, role: OrgRole) {
    const { org } = await this.membership(viewer, slug, "change_roles");
    const m = await memberById(this.deps.db, org.id, memberId);
    if (!m) throw new AppError("not_found", ORG_TEXT.notMember);
    await plugin(() => this.deps.auth.api.updateMemberRole({ headers, body: { memberId, role, organizationId: org.id } }));
    return { org, userId: m.userId, username: m.username, from: m.role, to: role };
  }

  async removeMember(viewer: Viewer, headers: Headers, slug: string, memberId: string) {
    const { org, role } = await this.membership(viewer, slug, "manage_members");
    const m = await memberById(this.deps.db, org.id, memberId);
    if (!m) throw new AppError("not_found", ORG_TEXT.notMember);
    if (m.role === "owner" && role !== "owner") throw new AppError("forbidden", ORG_TEXT.notAllowed);
    await plugin(() => this.deps.auth.api.removeMember({ headers, body: { memberIdOrEmail: memberId, organizationId: org.id } }));
    return { org, userId: m.userId, username: m.username, role: m.role };
  }

  async leave(viewer: Viewer, headers: Headers, slug: string) {
    const { org } = await this.membership(viewer, slug);
    await plugin(() => this.deps.auth.api.leaveOrganization({ headers, body: { organizationId: org.id } }));
    return { org };
  }

  async remove(viewer: Viewer, headers: Headers, slug: string) {
    const { org } = await this.membership(viewer, slug, "delete");
    // What it runs is stopped first, by someone who sees what stops (its members lose it).
    const held = await heldByAccount(this.deps.db, orgAccountId(org.id));
    if (held > 0) throw new AppError("conflict", ORG_TEXT.hasDeployments(held));
    // A paid plan stops being paid for: the provider is told before the account (and its row) goes.
    await this.deps.endPlan?.(orgAccountId(org.id));
    await plugin(() => this.deps.auth.api.deleteOrganization({ headers, body: { organizationId: org.id } }));
    await dropOrgAccount(this.deps.db, org.id);
    return { org };
  }
}

/** An organisation by its slug and the person's role in it (null: not a member, or no such organisation). */
export async function roleBySlug(db: Db, slug: string, userId: string): Promise<{ org: OrgRow | undefined; role: string | null }> {
  const org = await orgBySlug(db, slug);
  return { org, role: org ? await roleIn(db, org.id, userId) : null };
}

/** The person's organisations: id to slug. */
export async function orgIdsOf(db: Db, userId: string): Promise<Map<string, string>> {
  return new Map((await orgsOf(db, userId)).map((o) => [o.id, o.slug]));
}

/**
 * Before an account goes: an organisation it alone owns while others are in it would be left
 * without an owner (refused, in words); one it is alone in goes with it.
 */
export async function beforeAccountDeleted(
  db: Db,
  userId: string,
  /** ends what an organisation's account holds before it goes: its deployments (processes, then rows) and its paid plan */
  retire: (accountId: string) => Promise<void>,
): Promise<void> {
  const mine = (await orgsOf(db, userId)).filter((o) => o.role === "owner");
  const alone: string[] = [];
  for (const o of mine) {
    const members = await membersOf(db, o.id);
    if (members.length === 1) alone.push(o.id);
    else if (members.filter((m) => m.role === "owner").length === 1) throw new AppError("conflict", ORG_TEXT.stillOwner(o.name));
  }
  for (const id of alone) {
    await retire(orgAccountId(id));
    await deleteOrg(db, id);
    await dropOrgAccount(db, id);
  }
}

/** j•••@example.com: enough to recognise one's own address, not enough to learn someone else's. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at <= 0) return "•••";
  return `${email[0]}•••${email.slice(at)}`;
}
