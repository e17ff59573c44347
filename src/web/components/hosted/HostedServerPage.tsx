import type { ReactNode } from "react";
import { Link } from "react-router";
import type { AlertsPage } from "../../../shared/alerts";
import type { DomainsPage } from "../../../shared/domains";
import type { ToolStat } from "../../../shared/request-log";
import type { DeploymentState } from "../../lib/use-deployment";
import { DeploymentPanel } from "../DeploymentPanel";
import { ArrowLeft, Loader2, type Icon } from "../icons";
import { OwnerCards } from "../server/OwnerCards";
import { serverCard } from "../ServerParts";
import { ToolsList, type ToolInfo } from "../ToolsList";
import { Alert, Button, buttonClass, linkClass } from "../ui";

// The page of a server its owner made here, with no catalogue entry behind it: a connection's
// (connection.tsx) and a toolset's (toolset.tsx). Both show what a server page shows a
// deployment's owner; each adds its own header line and its own cards below the panel.

interface Texts {
  /** the list page's title: the back link's label */
  title: string;
  panelTitle: string;
  noTools: string;
  gone: string;
}

interface Props {
  /** the list page, e.g. /connections */
  back: string;
  icon: Icon;
  name: string;
  texts: Texts;
  deployment: DeploymentState;
  signedIn: boolean;
  ownTools: { tools: ToolInfo[]; listedAt: string | null } | null | undefined;
  page: { gatewayTimeoutMs: number; alerts: AlertsPage | null; domains: DomainsPage | null; toolStats: ToolStat[] };
  /** below the title, in the header */
  header: ReactNode;
  /** below the deployment panel */
  aside: ReactNode;
}

export function HostedServerPage({ back, icon: PageIcon, name, texts, deployment, signedIn, ownTools, page, header, aside }: Props) {
  const card = serverCard;
  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6">
      <Link to={back} className={`${linkClass} inline-flex items-center gap-1 text-sm`}>
        <ArrowLeft className="h-4 w-4" aria-hidden /> {texts.title}
      </Link>
      <header className="mt-4">
        <h1 className="flex items-center gap-2 text-3xl font-bold tracking-tight">
          <PageIcon className="h-7 w-7 text-indigo-500" aria-hidden /> {name}
        </h1>
        {header}
      </header>
      <div className="mt-8 grid gap-6 lg:grid-cols-3">
        <div className="min-w-0 space-y-6 lg:col-span-2">
          <OwnerCards
            deployment={deployment}
            owner={signedIn}
            tools={ownTools?.tools ?? []}
            gatewayTimeoutMs={page.gatewayTimeoutMs}
            alerts={page.alerts}
            domains={page.domains}
            card={card}
          />
          <ToolsList
            tools={ownTools?.tools ?? []}
            listedAt={ownTools?.listedAt ?? null}
            className={card}
            stats={page.toolStats}
            own
            empty={texts.noTools}
          />
        </div>
        <aside className="order-first min-w-0 space-y-6 lg:order-none">
          <section className={card} aria-labelledby="deployment">
            <h2 id="deployment" className="flex items-center gap-2 text-lg font-semibold">
              <PageIcon className="h-5 w-5 text-indigo-500" aria-hidden /> {texts.panelTitle}
            </h2>
            <DeploymentPanel
              serverId={name}
              requiredKeys={[]}
              signedIn={signedIn}
              hostingOpen
              canDeploy
              hasSource
              unavailable={texts.gone}
              state={deployment}
            />
          </section>
          {aside}
        </aside>
      </div>
    </div>
  );
}

/** The page's error boundary: not found, with the way back to the list. */
export function HostedNotFound({ back, title, notFound }: { back: string; title: string; notFound: string }) {
  return (
    <section className="mx-auto max-w-xl px-4 py-24 text-center">
      <h1 className="text-3xl font-bold">{notFound}</h1>
      <Link to={back} className={`mt-8 ${buttonClass("primary")}`}>
        <ArrowLeft className="h-4 w-4" aria-hidden /> {title}
      </Link>
    </section>
  );
}

/** The end of an edit form: its error or saved message, and its submit button. */
export function SaveFooter({ answer, busy, label }: { answer?: { error?: string; message?: string }; busy: boolean; label: string }) {
  return (
    <>
      {answer?.error && <Alert kind="error">{answer.error}</Alert>}
      {answer?.message && !answer.error && (
        <p role="status" className="text-sm text-green-700 dark:text-green-400">
          {answer.message}
        </p>
      )}
      <Button type="submit" size="sm" disabled={busy}>
        {busy && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
        {label}
      </Button>
    </>
  );
}
