import { ORG_TEXT } from "../../../shared/orgs";

// What the organisation page's parts share: the answer its action gives each form, and roles by rank.

/** The organisation page's answer: which form it is for, and what to say there. */
export type OrgAnswer = { form: string; error?: string; message?: string };

/** Roles by what they may do: an admin all a member may, an owner all an admin may. */
export const RANK: Record<string, number> = { member: 1, admin: 2, owner: 3 };
export const roleName = (r: string) => ORG_TEXT.roleNames[r] ?? r;
export const dateOf = (iso: string) => new Date(iso).toISOString().slice(0, 10);
