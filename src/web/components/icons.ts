import { createElement, type ReactElement, type SVGProps } from "react";
import {
  Activity as LucideActivity,
  AlertCircle as LucideAlertCircle,
  ArrowLeft as LucideArrowLeft,
  Ban as LucideBan,
  BellRing as LucideBellRing,
  Braces as LucideBraces,
  Building2 as LucideBuilding2,
  Check as LucideCheck,
  CheckCircle2 as LucideCheckCircle2,
  ChevronLeft as LucideChevronLeft,
  ChevronRight as LucideChevronRight,
  Copy as LucideCopy,
  CreditCard as LucideCreditCard,
  ExternalLink as LucideExternalLink,
  Eye as LucideEye,
  FileText as LucideFileText,
  FlaskConical as LucideFlaskConical,
  GitBranch as LucideGitBranch,
  Globe as LucideGlobe,
  History as LucideHistory,
  Inbox as LucideInbox,
  Info as LucideInfo,
  KeyRound as LucideKeyRound,
  Layers as LucideLayers,
  Link2 as LucideLink2,
  ListTree as LucideListTree,
  Loader2 as LucideLoader2,
  Lock as LucideLock,
  LogIn as LucideLogIn,
  LogOut as LucideLogOut,
  MailCheck as LucideMailCheck,
  Menu as LucideMenu,
  Moon as LucideMoon,
  Network as LucideNetwork,
  Pencil as LucidePencil,
  Play as LucidePlay,
  Plug as LucidePlug,
  PlugZap as LucidePlugZap,
  Plus as LucidePlus,
  PlusCircle as LucidePlusCircle,
  RefreshCw as LucideRefreshCw,
  Rocket as LucideRocket,
  RotateCw as LucideRotateCw,
  ScrollText as LucideScrollText,
  Search as LucideSearch,
  SearchX as LucideSearchX,
  Send as LucideSend,
  ShieldAlert as LucideShieldAlert,
  ShieldCheck as LucideShieldCheck,
  SlidersHorizontal as LucideSlidersHorizontal,
  Sparkles as LucideSparkles,
  Square as LucideSquare,
  Sun as LucideSun,
  Trash2 as LucideTrash2,
  TriangleAlert as LucideTriangleAlert,
  User as LucideUser,
  Wrench as LucideWrench,
  X as LucideX,
  XCircle as LucideXCircle,
  type LucideIcon,
} from "lucide-react";

// Lucide's icons, drawn without lucide-react's per-render work. lucide-react rebuilds each icon's
// attributes, class list and children on every render (~6% of a server page's CPU with its 18
// icons). Here each icon's children are built once, and a render only makes its <svg>. The markup
// is lucide-react's own, attribute for attribute (icons.test.ts compares every icon).

type IconData = { name: string; aliases?: string[]; node: [string, Record<string, string>][] };

/** A lucide-react icon is a forwardRef whose render hands its data to lucide's <Icon>: read it once. */
function dataOf(icon: LucideIcon): IconData {
  const render = (icon as unknown as { render(props: object, ref: null): ReactElement<{ icon: IconData }> }).render;
  return render({}, null).props.icon;
}

const SVG = {
  xmlns: "http://www.w3.org/2000/svg",
  width: 24,
  height: 24,
  viewBox: "0 0 24 24",
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 2,
  strokeLinecap: "round",
  strokeLinejoin: "round",
} as const;

/** Whether the icon is named for assistive technology (otherwise it is hidden from it, as lucide does). */
function labelled(props: object): boolean {
  for (const k in props) if (k.startsWith("aria-") || k === "role" || k === "title") return true;
  return false;
}

export type Icon = (props: SVGProps<SVGSVGElement>) => ReactElement;

export function lightIcon(icon: LucideIcon): Icon {
  const { name, aliases = [], node } = dataOf(icon);
  const base = ["lucide", `lucide-${name}`, ...aliases.map((a) => `lucide-${a}`)].join(" ");
  const children = node.map(([tag, { key, ...attrs }]) => createElement(tag, { key, ...attrs }));
  const Light = ({ className, ...props }: SVGProps<SVGSVGElement>) =>
    createElement(
      "svg",
      { ...SVG, className: className ? `${base} ${className}` : base, ...(labelled(props) ? {} : { "aria-hidden": "true" }), ...props },
      children,
    );
  Light.displayName = icon.displayName;
  return Light;
}

export const Activity = /* @__PURE__ */ lightIcon(LucideActivity);
export const AlertCircle = /* @__PURE__ */ lightIcon(LucideAlertCircle);
export const ArrowLeft = /* @__PURE__ */ lightIcon(LucideArrowLeft);
export const Ban = /* @__PURE__ */ lightIcon(LucideBan);
export const BellRing = /* @__PURE__ */ lightIcon(LucideBellRing);
export const Braces = /* @__PURE__ */ lightIcon(LucideBraces);
export const Building2 = /* @__PURE__ */ lightIcon(LucideBuilding2);
export const Check = /* @__PURE__ */ lightIcon(LucideCheck);
export const CheckCircle2 = /* @__PURE__ */ lightIcon(LucideCheckCircle2);
export const ChevronLeft = /* @__PURE__ */ lightIcon(LucideChevronLeft);
export const ChevronRight = /* @__PURE__ */ lightIcon(LucideChevronRight);
export const Copy = /* @__PURE__ */ lightIcon(LucideCopy);
export const CreditCard = /* @__PURE__ */ lightIcon(LucideCreditCard);
export const ExternalLink = /* @__PURE__ */ lightIcon(LucideExternalLink);
export const Eye = /* @__PURE__ */ lightIcon(LucideEye);
export const FileText = /* @__PURE__ */ lightIcon(LucideFileText);
export const FlaskConical = /* @__PURE__ */ lightIcon(LucideFlaskConical);
export const GitBranch = /* @__PURE__ */ lightIcon(LucideGitBranch);
export const Globe = /* @__PURE__ */ lightIcon(LucideGlobe);
export const History = /* @__PURE__ */ lightIcon(LucideHistory);
export const Inbox = /* @__PURE__ */ lightIcon(LucideInbox);
export const Info = /* @__PURE__ */ lightIcon(LucideInfo);
export const KeyRound = /* @__PURE__ */ lightIcon(LucideKeyRound);
export const Layers = /* @__PURE__ */ lightIcon(LucideLayers);
export const Link2 = /* @__PURE__ */ lightIcon(LucideLink2);
export const ListTree = /* @__PURE__ */ lightIcon(LucideListTree);
export const Loader2 = /* @__PURE__ */ lightIcon(LucideLoader2);
export const Lock = /* @__PURE__ */ lightIcon(LucideLock);
export const LogIn = /* @__PURE__ */ lightIcon(LucideLogIn);
export const LogOut = /* @__PURE__ */ lightIcon(LucideLogOut);
export const MailCheck = /* @__PURE__ */ lightIcon(LucideMailCheck);
export const Menu = /* @__PURE__ */ lightIcon(LucideMenu);
export const Moon = /* @__PURE__ */ lightIcon(LucideMoon);
export const Network = /* @__PURE__ */ lightIcon(LucideNetwork);
export const Pencil = /* @__PURE__ */ lightIcon(LucidePencil);
export const Play = /* @__PURE__ */ lightIcon(LucidePlay);
export const Plug = /* @__PURE__ */ lightIcon(LucidePlug);
export const PlugZap = /* @__PURE__ */ lightIcon(LucidePlugZap);
export const Plus = /* @__PURE__ */ lightIcon(LucidePlus);
export const PlusCircle = /* @__PURE__ */ lightIcon(LucidePlusCircle);
export const RefreshCw = /* @__PURE__ */ lightIcon(LucideRefreshCw);
export const Rocket = /* @__PURE__ */ lightIcon(LucideRocket);
export const RotateCw = /* @__PURE__ */ lightIcon(LucideRotateCw);
export const ScrollText = /* @__PURE__ */ lightIcon(LucideScrollText);
export const Search = /* @__PURE__ */ lightIcon(LucideSearch);
export const SearchX = /* @__PURE__ */ lightIcon(LucideSearchX);
export const Send = /* @__PURE__ */ lightIcon(LucideSend);
export const ShieldAlert = /* @__PURE__ */ lightIcon(LucideShieldAlert);
export const ShieldCheck = /* @__PURE__ */ lightIcon(LucideShieldCheck);
export const SlidersHorizontal = /* @__PURE__ */ lightIcon(LucideSlidersHorizontal);
export const Sparkles = /* @__PURE__ */ lightIcon(LucideSparkles);
export const Square = /* @__PURE__ */ lightIcon(LucideSquare);
export const Sun = /* @__PURE__ */ lightIcon(LucideSun);
export const Trash2 = /* @__PURE__ */ lightIcon(LucideTrash2);
export const TriangleAlert = /* @__PURE__ */ lightIcon(LucideTriangleAlert);
export const User = /* @__PURE__ */ lightIcon(LucideUser);
export const Wrench = /* @__PURE__ */ lightIcon(LucideWrench);
export const X = /* @__PURE__ */ lightIcon(LucideX);
export const XCircle = /* @__PURE__ */ lightIcon(LucideXCircle);
