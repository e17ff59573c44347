import type { ReactNode } from "react";
import { Rocket } from "../icons";
import { BackToServers, RepositoryLink, RequiredKeysList, serverCard } from "../ServerParts";

// What the two server pages share around their own parts: a catalogue entry's
// (routes/server.tsx) and a registered server's (routes/owned-server.tsx). The header (name,
// badges, id, repository, actions on the right), the two columns (the page's cards, and the
// aside that comes first on a phone), the 'Server Information' card and the 'Deployment' card.

interface LayoutProps {
  name: string;
  /** beside the name: its type, version or 'Pending Approval' */
  badges?: ReactNode;
  /** its id or qualified name, under the name */
  id: string;
  repositoryUrl: string | null;
  /** under the repository link: homepage and documentation links */
  links?: ReactNode;
  /** on the right of the header: Visit Server, Edit */
  actions: ReactNode;
  /** under the header, across the page: a withdrawn or deprecated entry's warning */
  notice?: ReactNode;
  /** the wide column's cards */
  children: ReactNode;
  /** the narrow column's cards (first on a phone) */
  aside: ReactNode;
  /** below both columns */
  after?: ReactNode;
}

export function ServerPageLayout({ name, badges, id, repositoryUrl, links, actions, notice, children, aside, after }: LayoutProps) {
  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6">
      <BackToServers />
      <header className="mt-4 flex flex-col gap-4 md:flex-row md:items-start md:justify-between">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-3">
            <h1 className="text-3xl font-bold tracking-tight">{name}</h1>
            {badges}
          </div>
          <p className="mt-1 font-mono text-sm text-slate-600 dark:text-slate-400">{id}</p>
          <RepositoryLink url={repositoryUrl} />
          {links}
        </div>
        <div className="flex gap-2 self-start">{actions}</div>
      </header>
      {notice && <div className="mt-4">{notice}</div>}

      <div className="mt-8 grid gap-6 lg:grid-cols-3">
        <div className="min-w-0 space-y-6 lg:col-span-2">{children}</div>
        <aside className="order-first min-w-0 space-y-6 lg:order-none">{aside}</aside>
      </div>
      {after}
    </div>
  );
}

/** The 'Server Information' card: the description, the facts, the tags or keywords. */
export function ServerInfoCard({ children }: { children: ReactNode }) {
  return (
    <section className={serverCard} aria-labelledby="info">
      <h2 id="info" className="text-lg font-semibold">
        Server Information
      </h2>
      {children}
    </section>
  );
}

/** The 'Deployment' card: the required keys for whoever cannot deploy it from here, then the panel (or a sign-in). */
export function DeploymentCard({ requiredKeys, children }: { requiredKeys: RequiredKeys | null; children: ReactNode }) {
  return (
    <section className={serverCard} aria-labelledby="deployment">
      <h2 id="deployment" className="flex items-center gap-2 text-lg font-semibold">
        <Rocket className="h-5 w-5 text-indigo-500" aria-hidden /> Deployment
      </h2>
      {requiredKeys && <RequiredKeysList keys={requiredKeys} />}
      {children}
    </section>
  );
}

type RequiredKeys = Parameters<typeof RequiredKeysList>[0]["keys"];
