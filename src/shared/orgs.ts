import { z } from "zod";

// Organisations (docs/product.md#organisations): an extra owner beside a person, with members in
// roles (owner, admin, member) and invitations by e-mail. The texts every page and answer uses.

export const ORG_ROLES = ["owner", "admin", "member"] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

export const ORG_TEXT = {
  title: "Organisations",
  intro:
    "An organisation is an owner beside you: its members share its servers, deployments, connections and toolsets, each with their own key, and its audit log says who did what.",
  create: "Create organisation",
  creating: "Creating...",
  created: "Organisation created",
  nameLabel: "Name",
  nameHint: "How people will see it, e.g. Acme Inc.",
  slugLabel: "Slug",
  slugHint: "Its namespace, as a username is: acme/weather. Lower-case letters, digits and hyphens.",
  nameRequired: "Name is required",
  nameTooLong: "Name may be at most 80 characters",
  slugFormat: "Slug may contain only lower-case letters, digits and hyphens (3 to 39 characters, starting with a letter or digit)",
  slugTaken: "This slug is already taken",
  none: "You are not in any organisation yet. Create one above, or accept an invitation from a colleague.",
  mustVerify: "Confirm your e-mail address before creating an organisation",
  loadFailed: "Failed to load your organisations. Please try again later.",
  notFound: "Organisation not found",
  yourRole: (role: string) => `Your role: ${role}`,
  roleNames: { owner: "Owner", admin: "Admin", member: "Member" } as Record<string, string>,
  roleHints: {
    owner: "Billing, deletion and roles, and everything an admin may do",
    admin: "Members and every resource of the organisation",
    member: "Uses the organisation's deployments, toolsets and connections",
  } as Record<string, string>,
  members: "Members",
  invitations: "Pending invitations",
  noInvitations: "No pending invitations.",
  invite: "Invite",
  inviting: "Inviting...",
  invited: (email: string) => `Invitation sent to ${email}`,
  inviteTitle: "Invite a colleague",
  emailLabel: "E-mail address",
  roleLabel: "Role",
  emailInvalid: "Enter a valid e-mail address",
  roleInvalid: "Choose owner, admin or member",
  alreadyMember: "This person is already a member",
  cancelInvitation: "Revoke",
  invitationCancelled: "Invitation revoked",
  revokeTitle: (email: string) => `Revoke the invitation to ${email}?`,
  revokeText: "The link in their e-mail stops working. You can invite them again later.",
  expires: (when: string) => `expires ${when}`,
  changeRole: "Change role",
  roleChanged: "Role changed",
  remove: "Remove",
  removed: "Member removed",
  removeTitle: (name: string) => `Remove ${name} from the organisation?`,
  removeText:
    "They lose access at once: their keys stop reaching the organisation's deployments and their open sessions end. What they made for the organisation stays with it.",
  leave: "Leave organisation",
  left: "You left the organisation",
  leaveTitle: (org: string) => `Leave ${org}?`,
  leaveText: "You lose access to its deployments, toolsets and connections at once. An admin can invite you again.",
  lastOwner: "An organisation needs an owner: make someone else owner before you leave or step down",
  deleteOrg: "Delete organisation",
  deleted: "Organisation deleted",
  deleteTitle: (org: string) => `Delete ${org}?`,
  deleteText:
    "Its members lose access, its registered servers are deleted, its invitations stop working and its name becomes free. Its audit log is kept for the site's admins. This cannot be undone.",
  cancel: "Cancel",
  notAllowed: "Your role in this organisation does not allow this",
  notMember: "You are not a member of this organisation",
  you: "you",
  joined: (when: string) => `joined ${when}`,
  settings: "Settings",
  rename: "Save name",
  renaming: "Saving...",
  renamed: "Name saved",
  slugStays: "The slug stays as it is: it is part of every address under it.",
  auditLog: "Audit log",
  // The invitation page
  invitationTitle: "Invitation",
  invitationFor: (inviter: string, org: string, role: string) => `${inviter} invited you to join ${org} as ${role}.`,
  invitationOther: (email: string) =>
    `This invitation is for ${email}. Log in with that address to accept it; it cannot be accepted from another account.`,
  invitationGone: "This invitation is no longer valid: it was accepted, revoked or declined, or it expired. Ask for a new one.",
  accept: "Accept and join",
  accepting: "Joining...",
  decline: "Decline",
  declined: "Invitation declined",
  accepted: (org: string) => `You joined ${org}`,
  loginToAccept: "Log in to accept",
  verifyToAccept: "Confirm your e-mail address first: then this invitation can be accepted.",
  stillOwner: (org: string) => `You are the only owner of ${org}: make another member owner, or delete it, before you delete your account`,
  personal: "Personal",
  ownerLabel: "Owner",
  deployAs: "Deploy as",
  deployAsHint: "An organisation's deployment uses its keys and its plan; its members connect with their own keys.",
  connectAs: "Connect as",
  connectAsHint: "An organisation's connection sends the headers given here; its members connect to it with their own keys.",
  makeAs: "Make as",
  makeAsHint: "An organisation's toolset combines the organisation's deployments and connections; its members connect with their own keys.",
  registerAs: "Register as",
  registerAsHint: "An organisation's server is named after its slug: whoever may deploy for the organisation edits and deploys it.",
  deployAsOwner: (org: string) => `This server is ${org}'s: deploy it as ${org}`,
  notAllowedDeploy: "Only the organisation's owners and admins can deploy for it or change its deployments",
  hasDeployments: (n: number) =>
    `This organisation still has ${n} deployment${n === 1 ? "" : "s"}: stop ${n === 1 ? "it" : "them"} on My deployments before deleting it`,
  ownedBy: (org: string) => `Owned by ${org}`,
  anOrganisation: "an organisation",
  ownersPay: "Only the organisation's owners can change its plan",
  membersDeployLabel: "Members may deploy for the organisation and change its deployments",
  membersDeployHint: "Off: members use its deployments with their own keys; only owners and admins deploy, stop, restart and edit keys.",
  saveSettings: "Save",
  settingsSaved: "Settings saved",
  planTitle: "Plan",
  planIs: (plan: string) => `This organisation is on the ${plan} plan.`,
  planHint: "Its deployments count against its own plan, never against a member's.",
  upgrade: "Upgrade to Pro",
  upgrading: "Opening checkout...",
  cancelPlan: "Cancel Pro",
  cancelPlanTitle: "Cancel the organisation's Pro plan?",
  cancelPlanText: "Pro stays until the end of the paid period; then the organisation's deployments are held to the Free plan's limits.",
  planRenews: (when: string) => `Renews ${when}.`,
  planEnds: (when: string) => `Pro ends ${when}.`,
} as const;

export const orgSlug = z
  .string({ error: ORG_TEXT.slugFormat })
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{2,38}$/, ORG_TEXT.slugFormat);

export const orgInput = z.object({
  name: z.string({ error: ORG_TEXT.nameRequired }).trim().min(1, ORG_TEXT.nameRequired).max(80, ORG_TEXT.nameTooLong),
  slug: orgSlug,
});

/** PUT /api/orgs/{slug}/settings: what the organisation lets its members do. */
export const orgSettingsInput = z.object({ members_deploy: z.boolean({ error: "members_deploy must be true or false" }) });

/** PUT /api/orgs/{slug}: a new name (the slug stays: it is in every address under it). */
export const orgRename = z.object({ name: orgInput.shape.name });

export const orgRole = z.enum(ORG_ROLES, { error: ORG_TEXT.roleInvalid });

export const inviteInput = z.object({
  email: z.string({ error: ORG_TEXT.emailInvalid }).trim().toLowerCase().max(254, ORG_TEXT.emailInvalid).email(ORG_TEXT.emailInvalid),
  role: orgRole,
});

export const roleInput = z.object({ role: orgRole });

export const orgView = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  /** the viewer's role in it */
  role: z.string(),
  members: z.number(),
  created_at: z.string(),
});
export type OrgView = z.infer<typeof orgView>;

export const memberView = z.object({
  id: z.string(),
  user_id: z.string(),
  username: z.string(),
  name: z.string(),
  email: z.string(),
  role: z.string(),
  joined_at: z.string(),
});
export type MemberView = z.infer<typeof memberView>;

export const invitationView = z.object({
  id: z.string(),
  email: z.string(),
  role: z.string(),
  status: z.string(),
  expires_at: z.string(),
  inviter: z.string(),
  created_at: z.string(),
});
export type InvitationView = z.infer<typeof invitationView>;

export const orgDetail = orgView.extend({
  /** its members may deploy for it and change its deployments, as its admins do */
  members_deploy: z.boolean(),
  members_list: z.array(memberView),
  invitations: z.array(invitationView),
});
export type OrgDetail = z.infer<typeof orgDetail>;

/** An invitation as its recipient sees it before accepting: who invited whom to what. */
export const invitationInfo = z.object({
  id: z.string(),
  org: z.object({ name: z.string(), slug: z.string() }),
  inviter: z.string(),
  email: z.string(),
  role: z.string(),
  expires_at: z.string(),
  /** pending and unexpired */
  valid: z.boolean(),
});
export type InvitationInfo = z.infer<typeof invitationInfo>;
