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
}
