import { data, Link } from "react-router";
import { buttonClass } from "../components/ui";

export function loader() {
  return data(null, { status: 404 });
}

export function meta() {
  return [{ title: "404 Page Not Found" }, { name: "robots", content: "noindex" }];
}

export default function NotFound() {
  return (
    <section className="mx-auto max-w-xl px-4 py-24 text-center">
      <p className="text-6xl font-extrabold text-indigo-500">404</p>
      <h1 className="mt-4 text-3xl font-bold">404 Page Not Found</h1>
      <p className="mt-4 text-slate-600 dark:text-slate-400">The page you are looking for does not exist or has moved.</p>
      <Link to="/" className={`mt-8 ${buttonClass("primary")}`}>
        Return to Home
      </Link>
    </section>
  );
}
