import { z } from "zod";

// Custom domains (Pro; docs/operations.md#custom-domains): a deployment or a toolset reached at
// https://<domain>/mcp once its owner proved control of <domain> with a DNS TXT record.

export const CHALLENGE_PREFIX = "_switchboard-challenge";

export const DOMAIN_TEXT = {
  title: "Custom domains",
  /** naming the host a domain's CNAME record points at (PUBLIC_URL's) */
  intro: (host: string) =>
    `Reach this deployment at your own domain: point it at ${host} with a CNAME record, add the TXT record shown, then verify.`,
  cnameName: "CNAME record name",
  cnameValue: "Points to",
  cnameHint: "At the root of a zone (example.com itself), where DNS allows no CNAME, use your DNS host's ALIAS or ANAME record instead.",
  proOnly: "Custom domains are part of the Pro plan.",
  upgrade: "Upgrade to Pro",
  label: "Domain",
  placeholder: "mcp.example.com",
  add: "Add domain",
  adding: "Adding…",
  added: (domain: string) => `${domain} added. Add its TXT and CNAME records, then verify.`,
  verify: "Verify",
  verifying: "Checking DNS…",
  verified: (domain: string) => `${domain} is verified: requests to it now reach this deployment.`,
  notYet: (name: string) =>
    `No TXT record with this value at ${name} yet. DNS changes can take a few minutes to be seen; try again shortly.`,
  remove: "Remove",
  removed: (domain: string) => `${domain} removed.`,
  removeTitle: (domain: string) => `Remove ${domain}?`,
  removeText: (domain: string) =>
    `Clients using https://${domain}/mcp get no answers, and apps connected there with OAuth lose their access. The deployment's own URL keeps working. To use the domain again, add it and verify its new TXT record.`,
  cancel: "Cancel",
  none: "No custom domains yet.",
  txtName: "TXT record name",
  txtValue: "Value",
  status: { pending: "Waiting for its TXT record", verified: "Verified", suspended: "Suspended: its TXT record is gone" },
  urlLabel: "URL",
  invalid: "Enter a domain name such as mcp.example.com (letters, digits and hyphens; at least two labels).",
  reserved: "This domain belongs to this site and cannot be added.",
  taken: "This domain is already used by a deployment on this site.",
  tooMany: (n: number) => `A deployment can have at most ${n} custom domains.`,
  notFound: "No such custom domain on this deployment.",
  dnsFailed: "The DNS lookup failed. Try again in a moment.",
} as const;

/** The most domains one deployment may have. */
export const MAX_DOMAINS_PER_DEPLOYMENT = 5;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A domain as the owner typed it: trimmed, lower case, without a trailing dot; a hostname of two labels or more, not an address. */
export function normalDomain(input: string): string | null {
  const d = input.trim().toLowerCase().replace(/\.$/, "");
  if (d.length < 4 || d.length > 253) return null;
  const labels = d.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  // An IPv4 address is not a domain; nor is a top-level label of digits only.
  if (/^\d+$/.test(labels.at(-1)!)) return null;
  return d;
}

/** POST /api/deployments/{id}/domains */
export const domainInput = z.object({
  domain: z
    .string()
    .max(300)
    .transform((s, ctx) => {
      const d = normalDomain(s);
      if (!d) {
        ctx.addIssue({ code: "custom", message: DOMAIN_TEXT.invalid });
        return z.NEVER;
      }
      return d;
    }),
});

export const domainView = z.object({
  domain: z.string(),
  status: z.enum(["pending", "verified", "suspended"]),
  /** where the deployment answers at this domain (Streamable HTTP) */
  url: z.string(),
  txt: z.object({ name: z.string(), value: z.string() }),
  /** the record that routes the domain here: a CNAME from the domain to PUBLIC_URL's host */
  cname: z.object({ name: z.string(), value: z.string() }),
  verified_at: z.string().nullable(),
  checked_at: z.string().nullable(),
});
export type DomainView = z.infer<typeof domainView>;

export const domainsPage = z.object({
  plan: z.enum(["free", "pro"]),
  max: z.number().int(),
  /** PUBLIC_URL's host name: where a domain's CNAME record points */
  host: z.string(),
  domains: z.array(domainView),
});
export type DomainsPage = z.infer<typeof domainsPage>;
