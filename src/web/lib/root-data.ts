import { useRouteLoaderData } from "react-router";

// What the root route's loader gives every page (the site's name and links, the CSP nonce, who is
// signed in). It lives here, apart from root.tsx, so the header and footer can read it without
// importing the root route that renders them.

export interface SiteInfo {
  name: string;
  builderUrl: string;
  communityUrl: string;
  year: number;
}

export interface RootUser {
  id: string;
  username: string;
  isAdmin: boolean;
}

export interface RootData {
  site: SiteInfo;
  nonce: string;
  user: RootUser | null;
  /** admins only: the host this page was reached at, when it is not PUBLIC_URL's (root.tsx) */
  otherHost?: { seen: string; publicUrl: string } | null;
}

export function useRootData(): RootData | undefined {
  return useRouteLoaderData<RootData>("root");
}

export function useSite(): SiteInfo {
  return useRootData()?.site ?? { name: "Switchboard", builderUrl: "#", communityUrl: "#", year: new Date().getFullYear() };
}
