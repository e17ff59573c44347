import { ExternalLink, Menu, Network, X } from "~/web/components/icons";
import { useState } from "react";
import { Link } from "react-router";
import { useRootData } from "../lib/root-data";
import { ThemeToggle } from "./ThemeToggle";
import { Button } from "./ui";
import { UserMenu } from "./UserMenu";

const navLink =
  "rounded-md px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100 hover:text-slate-900 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white";

export function Header() {
  const data = useRootData();
  const site = data?.site;
  const user = data?.user ?? null;
  const [open, setOpen] = useState(false);

  const links = (
    <>
      {user && (
        <Link to="/servers/add" className={navLink} onClick={() => setOpen(false)}>
          Add Server
        </Link>
      )}
      <a href={site?.builderUrl} target="_blank" rel="noopener noreferrer" className={`${navLink} inline-flex items-center gap-1`}>
        Workflow Builder
        <ExternalLink className="h-3.5 w-3.5" aria-hidden />
        <span className="sr-only">(opens in a new tab)</span>
      </a>
    </>
  );

  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-950/90">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:rounded focus:bg-indigo-600 focus:px-3 focus:py-1 focus:text-white"
      >
        Skip to content
      </a>
      <nav className="mx-auto flex h-16 max-w-7xl items-center justify-between px-4 sm:px-6" aria-label="Main">
        <Link to="/" className="flex items-center gap-2 text-lg font-bold tracking-tight">
          <Network className="h-6 w-6 text-indigo-500" aria-hidden />
          <span>{site?.name ?? "Switchboard"}</span>
        </Link>
        <div className="hidden items-center gap-1 md:flex">
          {links}
          <ThemeToggle />
          {user && <UserMenu username={user.username} isAdmin={user.isAdmin} />}
        </div>
        <div className="flex items-center gap-1 md:hidden">
          <ThemeToggle />
          {user && <UserMenu username={user.username} isAdmin={user.isAdmin} />}
          <Button
            variant="ghost"
            size="icon"
            aria-expanded={open}
            aria-controls="mobile-menu"
            aria-label={open ? "Close menu" : "Open menu"}
            onClick={() => setOpen((o) => !o)}
          >
            {open ? <X className="h-6 w-6" aria-hidden /> : <Menu className="h-6 w-6" aria-hidden />}
          </Button>
        </div>
      </nav>
      {open && (
        <div id="mobile-menu" className="flex flex-col gap-1 border-t border-slate-200 px-4 py-3 md:hidden dark:border-slate-800">
          {links}
        </div>
      )}
    </header>
  );
}
