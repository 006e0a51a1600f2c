import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initBareRepository } from "../../../src/git/mirror/bare-init.js";
import { originSection } from "../../../src/git/mirror/mirror.js";
import { git, gitTestEnv, makeTempDir, type TempDir } from "../../helpers/git-repos.js";

/**
 * A new mirror's remote is written into its config by us (one git process
 * fewer on the way to the first fetch): it must read back exactly as what
 * `git remote add --no-tags origin <url>` writes, whatever the URL holds.
 */

const dirs: TempDir[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

const URLS = [
  "https://github.com/octo-org/demo.git",
  "http://127.0.0.1:41234/demo.git",
  'https://example.com/a b"c\\d;e#f.git',
];

function tempDir(): string {
  const tmp = makeTempDir("pw-origin-");
  dirs.push(tmp);
  return tmp.path;
}

describe("a new mirror's origin", () => {
  it.each(URLS)("reads back as git remote add writes it: %s", async (url) => {
    const tmp = tempDir();
    const env = gitTestEnv(join(tmp, "home"));
    // As syncMirror makes it.
    const ours = join(tmp, "ours.git");
    initBareRepository(ours, originSection(url));
    const gits = join(tmp, "gits.git");
    git(tmp, ["init", "--bare", "--quiet", gits], env);
    git(gits, ["remote", "add", "--no-tags", "origin", url], env);
    const list = (dir: string) => git(dir, ["config", "--list", "--local"], env);
    expect(list(ours)).toBe(list(gits));
    expect(git(ours, ["config", "--get", "remote.origin.url"], env)).toBe(url);
    expect(readFileSync(join(ours, "config"), "utf8")).toContain("tagOpt = --no-tags");
  });

  it("refuses a URL with a line break, which would write config of its own", () => {
    expect(() => originSection("https://example.com/x.git\n[core]\n\tfsmonitor = evil")).toThrow(
      "line break",
    );
  });
});
