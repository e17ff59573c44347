import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import {
  CreditCard,
  History,
  Inbox,
  KeyRound,
  Layers,
  LogOut,
  Network,
  Plug,
  PlusCircle,
  Rocket,
  ShieldCheck,
  User,
} from "~/web/components/icons";
import { Link } from "react-router";
import { AUTH_TEXT } from "../../shared/auth";
import { api } from "../lib/api";

export async function signOut() {
  await api("/api/auth/sign-out", { body: {} });
  window.location.assign("/");
}

const item =
  "flex cursor-pointer items-center gap-2 rounded px-3 py-2 text-sm outline-none data-[highlighted]:bg-slate-100 dark:data-[highlighted]:bg-slate-800";

export function UserMenu({ username, isAdmin = false }: { username: string; isAdmin?: boolean }) {
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger
        aria-label={`Account menu for ${username}`}
        className="ml-1 flex h-9 w-9 items-center justify-center rounded-full bg-indigo-600 font-semibold uppercase text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500"
      >
        {username.charAt(0)}
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="end"
          sideOffset={8}
          className="z-50 min-w-52 rounded-lg border border-slate-200 bg-white p-1 text-slate-900 shadow-lg dark:border-slate-800 dark:bg-slate-900 dark:text-slate-100"
        >
          <div className="px-3 py-2 text-sm">
            <p className="text-slate-600 dark:text-slate-400">{AUTH_TEXT.signedInAs}</p>
            <p className="truncate font-semibold">{username}</p>
          </div>
          <DropdownMenu.Separator className="my-1 h-px bg-slate-200 dark:bg-slate-800" />
          <DropdownMenu.Item asChild className={item}>
            <Link to="/profile">
              <User className="h-4 w-4" aria-hidden /> {AUTH_TEXT.yourProfile}
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={item}>
            <Link to="/deployments">
              <Rocket className="h-4 w-4" aria-hidden /> My deployments
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={item}>
            <Link to="/connections">
              <Plug className="h-4 w-4" aria-hidden /> Connections
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={item}>
            <Link to="/toolsets">
              <Layers className="h-4 w-4" aria-hidden /> Toolsets
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={item}>
            <Link to="/orgs">
              <Network className="h-4 w-4" aria-hidden /> Organisations
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={item}>
            <Link to="/audit">
              <History className="h-4 w-4" aria-hidden /> Audit log
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={item}>
            <Link to="/submissions">
              <Inbox className="h-4 w-4" aria-hidden /> My submissions
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={item}>
            <Link to="/servers/server/new">
              <PlusCircle className="h-4 w-4" aria-hidden /> Register a server
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={item}>
            <Link to="/servers/apikeys">
              <KeyRound className="h-4 w-4" aria-hidden /> API Keys
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={item}>
            <Link to="/subscription">
              <CreditCard className="h-4 w-4" aria-hidden /> Subscription
            </Link>
          </DropdownMenu.Item>
          {isAdmin && (
            <DropdownMenu.Item asChild className={item}>
              <Link to="/admin/mcp-servers">
                <ShieldCheck className="h-4 w-4" aria-hidden /> Admin
              </Link>
            </DropdownMenu.Item>
          )}
          <DropdownMenu.Item className={item} onSelect={() => void signOut()}>
            <LogOut className="h-4 w-4" aria-hidden /> {AUTH_TEXT.signOut}
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
