import { betterAuth, type BetterAuthOptions, type BetterAuthPlugin } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError } from "better-auth/api";
import { genericOAuth, organization, type OrganizationOptions } from "better-auth/plugins";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import * as schema from "../../db/schema.js";
import type { Logger } from "../../log.js";
import type { Mailer } from "../mail/mailer.js";
import { confirmEmailMail, invitationMail, resetPasswordMail } from "../mail/templates.js";
import { hashPassword, verifyPassword } from "./password.js";
import { findUserById } from "./repo.js";
import { MAX_PASSWORD, MIN_PASSWORD, withRedirect } from "~/shared/auth.js";

export const CLIENT_IP_HEADER = "x-switchboard-client-ip";

export interface AuthDeps {
  config: Config;
  db: Db;
  mailer: Mailer;
  log: Logger;
  secret: string;
  /**
   * told when the OAuth provider revokes tokens (the gateway's caches listen): api-keys' KeyRevocations,
   * given by the platform; only its `revoked()` is named here, so auth does not import api-keys
   */
  revocations?: { revoked(): Promise<void> };
}

/**
 * What other features add to sign-in. The app gives them (http/app.ts), so auth imports neither:
 * the OAuth provider's plugins and hooks (features/oauth) and what an account's life means for its
 * profile (features/profile).
 */
export interface AuthExtensions {
  plugins: BetterAuthPlugin[];
  /** Switchboard's rules around the OAuth provider's endpoints */
  hooks: BetterAuthOptions["hooks"];
  accounts: AccountHooks;
  /** Switchboard's rules around organisations (features/orgs/plugin-hooks.ts): namespaces, what removal ends */
  organizations: NonNullable<OrganizationOptions["organizationHooks"]>;
}

/** How long an invitation to an organisation stays good. */
export const INVITATION_TTL_SECONDS = 7 * 24 * 60 * 60;

/** What happens around an account (features/profile's accountHooks). */
export interface AccountHooks {
  /** an account was created */
  created(u: { id: string; email: string; name: string }): Promise<void>;
  /** an account's new e-mail address was confirmed */
  emailChanged(id: string, email: string): Promise<void>;
  /** a session is about to be made for the account */
  signingIn(u: { id: string; email: string; name: string }): Promise<void>;
}

interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

export function githubConfigured(config: Config): boolean {
  return Boolean(config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET);
}

/** The `redirect` of the callback a verification URL names (`/login?redirect=<path>`), or null. */
function goingTo(verificationUrl: string, base: string): string | null {
  try {
    const callback = new URL(verificationUrl).searchParams.get("callbackURL");
    if (!callback) return null;
    const u = new URL(callback, base);
    return u.origin === new URL(base).origin && u.pathname === "/login" ? u.searchParams.get("redirect") : null;
  } catch {
    return null;
  }
}

export function createAuth(deps: AuthDeps, ext: AuthExtensions) {
  const { config, db, mailer } = deps;
  const site = config.SITE_NAME;
  const link = (path: string, token: string) => `${config.PUBLIC_URL}${path}?token=${encodeURIComponent(token)}`;
  const gh = config.GITHUB_OAUTH_URL.replace(/\/+$/, "");
  const ghApi = config.GITHUB_API_URL.replace(/\/+$/, "");

  return betterAuth({
    appName: site,
    baseURL: config.PUBLIC_URL,
    basePath: "/api/auth",
    secret: deps.secret,
    trustedOrigins: [...config.allowedOrigins],
    // In transactions: what the plugins change together (an organisation and its members) is
    // changed at once or not at all, and the database's owner guard is checked at the end of it.
    database: drizzleAdapter(db, { provider: "pg", schema, usePlural: false, transaction: true }),
    logger: { disabled: config.NODE_ENV === "test" },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      autoSignIn: false,
      minPasswordLength: MIN_PASSWORD,
      maxPasswordLength: MAX_PASSWORD,
      password: { hash: hashPassword, verify: verifyPassword },
      resetPasswordTokenExpiresIn: 60 * 60,
      revokeSessionsOnPasswordReset: true,
      sendResetPassword: async ({ user, token }) => {
        await mailer.send(resetPasswordMail(site, user.email, link("/reset-password", token)));
      },
    },
    emailVerification: {
      expiresIn: 24 * 60 * 60,
      sendOnSignUp: true,
      // An unconfirmed account that logs in with the right password gets a fresh link.
      sendOnSignIn: true,
      autoSignInAfterVerification: false,
      sendVerificationEmail: async ({ user, token, url }) => {
        // Sign-up and sign-in name where the visitor was going as the callback (/login?redirect=<path>):
        // the link carries that path on, if it is one of this site's (withRedirect checks it).
        await mailer.send(confirmEmailMail(site, user.email, withRedirect(link("/verify-email", token), goingTo(url, config.PUBLIC_URL))));
      },
    },
    user: {
      changeEmail: { enabled: true },
    },
    session: {
      expiresIn: 7 * 24 * 60 * 60,
      updateAge: 24 * 60 * 60,
    },
    account: {
      accountLinking: { enabled: true, trustedProviders: [], allowDifferentEmails: false },
    },
    // Our own limiter (http/rate-limit.ts) counts per IP and per account.
    rateLimit: { enabled: false },
    // Switchboard's rules around the OAuth provider's endpoints (features/oauth/plugin.ts).
    hooks: ext.hooks,
    // Where a request that must not go back to its sender ends (an unknown OAuth client, an
    // unregistered redirect address, a sign-in callback without its state): the site's error page.
    onAPIError: { errorURL: `${config.PUBLIC_URL}/oauth/error` },
    advanced: {
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      useSecureCookies: config.PUBLIC_URL.startsWith("https://"),
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
    },
    databaseHooks: {
      user: {
        create: {
          after: async (u) => {
            await ext.accounts.created({ id: u.id, email: u.email, name: u.name });
          },
        },
        update: {
          after: async (u) => {
            // A confirmed change of address is mirrored into the profile.
            await ext.accounts.emailChanged(u.id, u.email);
          },
        },
      },
      session: {
        // Signing out (or a password reset ending other sessions) ends the playground's MCP sessions
        // opened with that sign-in, in every process, as a revoked key ends its sessions.
        delete: {
          after: async () => {
            await deps.revocations?.revoked();
          },
        },
        create: {
          before: async (s) => {
            const u = await findUserById(db, s.userId);
            if (!u) throw new APIError("UNAUTHORIZED", { message: "Account not found" });
            await ext.accounts.signingIn({ id: u.id, email: u.email, name: u.name });
          },
        },
      },
    },
    plugins: [
      // Organisations, members, invitations and roles (docs/decisions/025-organisations.md). Reached
      // over HTTP only through Switchboard's own /api/orgs routes (features/orgs), never directly.
      organization({
        allowUserToCreateOrganization: (u) => u.emailVerified === true,
        creatorRole: "owner",
        invitationExpiresIn: INVITATION_TTL_SECONDS,
        cancelPendingInvitationsOnReInvite: true,
        requireEmailVerificationOnInvitation: true,
        organizationHooks: ext.organizations,
        sendInvitationEmail: async (inv) => {
          await mailer.send(
            invitationMail(site, inv.email, {
              org: inv.organization.name,
              inviter: inv.inviter.user.name || inv.inviter.user.email,
              role: inv.role,
              url: `${config.PUBLIC_URL}/invitations/${encodeURIComponent(inv.id)}`,
            }),
          );
        },
      }),
      ...ext.plugins,
      ...(githubConfigured(config)
        ? [
            genericOAuth({
              config: [
                {
                  providerId: "github",
                  name: "GitHub",
                  clientId: config.GITHUB_CLIENT_ID!,
                  clientSecret: config.GITHUB_CLIENT_SECRET!,
                  authorizationUrl: `${gh}/login/oauth/authorize`,
                  tokenUrl: `${gh}/login/oauth/access_token`,
                  scopes: ["read:user", "user:email"],
                  pkce: true,
                  getUserInfo: async (tokens) => {
                    const headers = {
                      Authorization: `Bearer ${tokens.accessToken}`,
                      Accept: "application/vnd.github+json",
                      "User-Agent": site,
                    };
                    const [profileRes, emailsRes] = await Promise.all([
                      fetch(`${ghApi}/user`, { headers }),
                      fetch(`${ghApi}/user/emails`, { headers }),
                    ]);
                    if (!profileRes.ok) return null;
                    const profile = (await profileRes.json()) as { id: number; login: string; name?: string | null; avatar_url?: string };
                    const emails = emailsRes.ok ? ((await emailsRes.json()) as GitHubEmail[]) : [];
                    const primary = emails.find((e) => e.primary) ?? emails[0];
                    if (!primary) return null;
                    return {
                      id: String(profile.id),
                      email: primary.email,
                      // Only a verified address may link to an existing account.
                      emailVerified: primary.verified === true,
                      name: profile.name || profile.login,
                      image: profile.avatar_url,
                    };
                  },
                },
              ],
            }),
          ]
        : []),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;
