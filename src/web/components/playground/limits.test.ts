import { describe, expect, it } from "vitest";
import { audioSource, base64Bytes, boundedJson, clipText, imageSource, LIMITS, safeHref } from "./limits";
import { PLAYGROUND_TEXT } from "./text";

describe("bounded output", () => {
  it("clips a 10 MB text to the limit, quickly, and says how long it was", () => {
    const big = "x".repeat(10 * 1024 * 1024);
    const started = performance.now();
    const c = clipText(big);
    expect(performance.now() - started).toBeLessThan(100);
    expect(c).toMatchObject({ total: big.length, clipped: true });
    expect(c.text.length).toBe(LIMITS.textChars);
    expect(clipText("short")).toEqual({ text: "short", total: 5, clipped: false });
  });

  it("pretty-prints JSON as JSON.stringify does when it is small", () => {
    const v = { a: [1, "two", null, true, { b: {} }], c: [], d: 'q"uote' };
    expect(boundedJson(v)).toEqual({ text: JSON.stringify(v, null, 2), total: JSON.stringify(v, null, 2).length, clipped: false });
  });

  it("stops at the depth limit on a 10,000-deep value", () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 10_000; i++) deep = { n: deep };
    const started = performance.now();
    const out = boundedJson(deep);
    expect(performance.now() - started).toBeLessThan(200);
    expect(out.clipped).toBe(true);
    expect(out.text).toContain("{…}");
    expect(out.text).not.toContain("bottom");
    expect(out.text.split("\n").length).toBeLessThan(2 * LIMITS.jsonDepth + 2);
  });

  it("bounds a 10 MB string, a huge array and many keys", () => {
    const started = performance.now();
    const s = boundedJson({ s: "y".repeat(10 * 1024 * 1024) });
    expect(s.clipped).toBe(true);
    expect(s.text.length).toBeLessThanOrEqual(LIMITS.jsonChars);
    const arr = boundedJson(
      Array.from({ length: 200_000 }, (_, i) => i),
      { chars: 10_000_000 },
    );
    expect(arr.clipped).toBe(true);
    expect(arr.text).toContain(`… ${(200_000 - LIMITS.jsonEntries).toLocaleString("en-US")} more`);
    const wide = boundedJson(Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, "v".repeat(100)])));
    expect(wide.text.length).toBeLessThanOrEqual(LIMITS.jsonChars);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("links and media from a server", () => {
  it("links only http(s) URIs", () => {
    expect(safeHref("https://example.com/a?b=1")).toBe("https://example.com/a?b=1");
    expect(safeHref("http://example.com")).toBe("http://example.com/");
    for (const bad of [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      " javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "file:///etc/passwd",
      "demo://resource/1",
      "/relative",
      "vbscript:x",
      42,
      null,
    ])
      expect(safeHref(bad)).toBeNull();
  });

  it("shows raster images only, as data: URLs of valid base64 within the size limit", () => {
    expect(imageSource("image/png", "iVBORw0KGgo=")).toEqual({ ok: true, src: "data:image/png;base64,iVBORw0KGgo=", bytes: 8 });
    expect(imageSource("image/svg+xml", "PHN2Zz4=")).toMatchObject({ ok: false, why: PLAYGROUND_TEXT.mediaType("image", "image/svg+xml") });
    expect(imageSource("text/html", "PGI+")).toMatchObject({ ok: false });
    expect(imageSource("image/png", 'not base64!"><script>')).toMatchObject({ ok: false, why: "This image's data is not valid base64." });
    expect(imageSource("image/png", "A".repeat(12 * 1024 * 1024))).toMatchObject({
      ok: false,
      why: PLAYGROUND_TEXT.mediaTooLarge("image", 9_437_184),
    });
    expect(audioSource("audio/wav", "UklGRg==")).toMatchObject({ ok: true, src: "data:audio/wav;base64,UklGRg==" });
    expect(audioSource("video/mp4", "AAAA")).toMatchObject({ ok: false });
    expect(base64Bytes("UklGRg==")).toBe(4);
  });
});
