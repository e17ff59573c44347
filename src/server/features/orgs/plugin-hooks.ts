import { APIError } from "better-auth/api";
import type { OrganizationOptions } from "better-auth/plugins";
import { ORG_TEXT } from "~/shared/orgs.js";
import type { Db } from "../../db/client.js";
import { isUsername } from "./repo.js";

// Switchboard's rules around the organization plugin's own changes (features/auth/auth.ts takes
// them): one namespace for people and organisations, and a member who leaves or is removed loses
// access at once, as a revoked key does (the gateway's caches forget what they knew).

export function organizationHooks(deps: {
  db: Db;
  /** api-keys' KeyRevocations: every process re-checks credentials and ends sessions that lost access */
  revocations: { revoked(): Promise<void> };
}): NonNullable<OrganizationOptions["organizationHooks"]> {
  const namespace = async (slug: string | undefined) => {
    if (slug && (await isUsername(deps.db, slug)))
      throw new APIError("BAD_REQUEST", { code: "ORGANIZATION_SLUG_ALREADY_TAKEN", message: ORG_TEXT.slugTaken });
  };
  return {
    beforeCreateOrganization: async ({ organization }) => {
      await namespace(organization.slug);
    },
    beforeUpdateOrganization: async ({ organization }) => {
      await namespace(organization.slug);
    },
    afterRemoveMember: async () => {
      await deps.revocations.revoked();
    },
    afterUpdateMemberRole: async () => {
      await deps.revocations.revoked();
    },
    afterDeleteOrganization: async () => {
      await deps.revocations.revoked();
    },
  };
}
