import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { machineMounts, sandboxMounts } from "../../src/sandbox/layout.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/** A fake home with toolchains of the shapes found in the wild. */
async function home() {
  const root = await makeTempDir("pw-home-");
  for (const dir of [
    ".nvm/versions/node/v20.18.1/bin",
    ".nvm/versions/node/v20.18.1/lib",
    ".cargo/bin",
    ".local/bin",
    ".local/lib",
    "bin",
  ]) {
    await mkdir(join(root, dir), { recursive: true });
  }
  return root;
}

describe("what a sandbox shows", () => {
  it("shows toolchains on PATH read-only, but never a home folder or a folder right under it", async () => {
    const h = await home();
    const cache = join(h, ".cache", "patchwright");
    await mkdir(join(cache, "bin"), { recursive: true });
    const mounts = machineMounts({
      path: [
        join(h, ".nvm/versions/node/v20.18.1/bin"),
        join(h, ".cargo/bin"),
        join(h, ".local/bin"),
        join(h, "bin"),
        join(cache, "bin"),
        "/usr/bin",
      ].join(":"),
      nodePath: "/usr/bin/node",
      hidden: [cache],
      home: h,
    });
    const shown = mounts.filter((m) => m.kind === "ro").map((m) => m.path);
    expect(shown).toContain(join(h, ".nvm/versions/node/v20.18.1"));
    expect(shown).toContain(join(h, ".cargo/bin"));
    expect(shown).toContain(join(h, ".local/bin"));
    expect(shown).toContain(join(h, "bin"));
    expect(shown).not.toContain(h);
    expect(shown).not.toContain(join(h, ".local"));
    expect(shown).not.toContain(join(h, ".cargo"));
    expect(shown.some((path) => path.startsWith(cache))).toBe(false);
    expect(shown).toContain("/usr");
    expect(shown).not.toContain("/usr/bin");
    // Secrets in /etc are covered.
    expect(mounts).toContainEqual({ kind: "mask-file", path: "/etc/shadow" });
  });

  it("shows the packages a tool folder's commands run: a node_modules/.bin's node_modules, a home npm prefix's lib/node_modules", async () => {
    const h = await home();
    for (const dir of [
      "setup-pnpm/node_modules/.bin",
      ".npm-global/bin",
      ".npm-global/lib/node_modules",
      ".npm-global/etc",
    ]) {
      await mkdir(join(h, dir), { recursive: true });
    }
    const mounts = machineMounts({
      path: [
        join(h, "setup-pnpm/node_modules/.bin"),
        join(h, ".npm-global/bin"),
        join(h, ".local/bin"),
      ].join(":"),
      nodePath: "/usr/bin/node",
      hidden: [],
      home: h,
    });
    const shown = mounts.filter((m) => m.kind === "ro").map((m) => m.path);
    expect(shown).toContain(join(h, "setup-pnpm/node_modules"));
    expect(shown).toContain(join(h, ".npm-global/bin"));
    expect(shown).toContain(join(h, ".npm-global/lib/node_modules"));
    // Not the prefix (its etc holds npm's config), nor ~/.local's lib (no npm packages there).
    expect(shown).not.toContain(join(h, ".npm-global"));
    expect(shown.some((path) => path.startsWith(join(h, ".npm-global/etc")))).toBe(false);
    expect(shown).not.toContain(join(h, ".local/lib/node_modules"));
    expect(shown).not.toContain(join(h, "setup-pnpm"));
  });

  it("puts the workspace writable and its git metadata read-only on top, and covers hidden paths inside", async () => {
    const ws = await makeTempDir("pw-ws-");
    await mkdir(join(ws, ".git"));
    const mounts = sandboxMounts([{ kind: "ro", path: "/usr" }], {
      workspace: ws,
      readOnly: [join(ws, ".git"), "/nonexistent/mirror"],
      hidden: ["/usr/local/share"],
    });
    const order = mounts.map((m) => `${m.kind} ${m.path}`);
    expect(order.indexOf(`rw ${ws}`)).toBeLessThan(order.indexOf(`ro ${join(ws, ".git")}`));
    expect(order).not.toContain("ro /nonexistent/mirror");
    expect(order).toContain("tmpfs /tmp");
    expect(order).toContain("tmpfs /usr/local/share");
  });
});
