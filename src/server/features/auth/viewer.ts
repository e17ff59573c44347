/** The signed-in person as pages and APIs see them. */
export interface Viewer {
  id: string;
  email: string;
  emailVerified: boolean;
  username: string;
  fullName: string;
  isAdmin: boolean;
  /** Signed in with an API key (Authorization: Bearer) rather than a browser session. */
  viaApiKey?: boolean;
  /** With an API key: what it allows (its scopes, the servers it may reach, null: all; its expiry). */
  key?: { scopes: readonly string[]; resources: readonly string[] | null; expiresAt: Date | null };
}
