import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown, ParsedMarkdown } from "./Markdown.js";
import { isPlainText } from "./markdown-plain.js";

const html = (c: typeof Markdown, text: string) => renderToStaticMarkup(createElement(c, { children: text }));

describe("Markdown's shortcut for plain text", () => {
  it.each([
    "An MCP server for github and slack workflows, with tools to read, search and update redis data.",
    "Query PostgreSQL databases (read-only): 100% of the schema, via SQL.",
    "Ärger mit Umlauten? Kein Problem; 'quoted' and \"double\" too.",
    "Tools: a=b, c+d, e/f",
  ])("renders %j exactly as the parser would", (text) => {
    expect(isPlainText(text)).toBe(true);
    expect(html(Markdown, text)).toBe(html(ParsedMarkdown, text));
  });

  it.each([
    "**bold** claims",
    "See www.example.com for more",
    "Docs at https://example.com",
    "Mail me@example.com",
    "1. first step",
    "- a list",
    "# Heading",
    "> quoted",
    "two\nlines",
    "a <script>alert(1)</script>",
    "[link](javascript:alert(1))",
    "`code`",
    "Tom &amp; Jerry",
    "trailing space ",
    "~~gone~~",
    "a | b",
  ])("leaves %j to the parser", (text) => {
    expect(isPlainText(text)).toBe(false);
    expect(html(Markdown, text)).toBe(html(ParsedMarkdown, text));
  });
});
