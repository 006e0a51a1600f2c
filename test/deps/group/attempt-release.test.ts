import { chmod, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attemptUpdates } from "../../../src/deps/group/attempt.js";
import type { Update } from "../../../src/deps/update.js";
import { git, makeRepo } from "../../helpers/temp-dir.js";
import { testAttempt, testTools } from "./attempt-context.js";

/**
 * A try that replaces the project's yarn release, run once and then found
 * among the job's passed tries: the files come back from memory, and the
 * new release keeps the old one's mode there too (the commit takes a new
 * file's mode from the workspace).
 */

const NEXT = ".yarn/releases/yarn-4.18.2.cjs";

/** The update to 4.18.2 of a project whose yarnPath names `old` (replaced when in .yarn/releases). */
const updateFrom = (old: string): Update => ({
  name: "yarn",
  package: "@yarnpkg/cli-dist",
  from: "4.18.1",
  to: "4.18.2",
  type: "patch",
  locations: [
    {
      manifest: "package.json",
      section: "packageManager",
      spec: "yarn@4.18.1",
      newSpec: "yarn@4.18.2",
      from: "4.18.1",
      release: {
        file: NEXT,
        settings: ".yarnrc.yml",
        ...(old.startsWith(".yarn/releases/") ? { replaces: old } : {}),
        from: { package: "@yarnpkg/cli-dist", file: "bin/yarn.js" },
      },
    },
  ],
  links: {},
  newInstallScripts: [],
  passedOver: [],
});

describe("a passed try that replaced the yarn release, tried again", () => {
  // The second: a release kept outside .yarn/releases stays, and only the settings name the old one.
  it.each([
    [".yarn/releases/yarn-4.18.1.cjs", 0o755],
    ["tools/yarn.cjs", 0o644],
  ] as const)(
    "writes the remembered files back with the mode of %s, and runs nothing",
    async (OLD, mode) => {
      const update = updateFrom(OLD);
      const dir = await makeRepo({
        "package.json": `${JSON.stringify({ name: "app", packageManager: "yarn@4.18.1" })}\n`,
        ".yarnrc.yml": `yarnPath: ${OLD}\n`,
        [OLD]: "// 4.18.1\n",
      });
      await chmod(join(dir, OLD), mode);
      git(dir, "add", "-A");
      git(dir, "commit", "-q", "--allow-empty", "-m", "the release's mode");
      let fetched = 0;
      const tools = testTools({
        install: "true",
        verify: "echo checked >> checks.log",
        manifests: ["package.json"],
        lockfilePath: undefined,
        releaseBytes: async () => {
          fetched++;
          return Buffer.from("// 4.18.2\n");
        },
      });
      const steps: string[] = [];
      const ctx = testAttempt(dir, tools, {
        passed: new Map(),
        step: (text) => steps.push(text),
      });
      const first = await attemptUpdates(ctx, [update]);
      expect(first).toMatchObject({ passed: true, files: ["package.json", NEXT, ".yarnrc.yml"] });
      expect((await stat(join(dir, NEXT))).mode & 0o777).toBe(mode);

      const again = await attemptUpdates(ctx, [update]);
      expect(again.passed).toBe(true);
      expect(steps.at(-1)).toBe(
        "Not checked again: `echo checked >> checks.log` passed on these same files earlier in this job",
      );
      // The check ran once (the reset between tries took its log away; nothing wrote it again).
      await expect(readFile(join(dir, "checks.log"), "utf8")).rejects.toThrow();
      expect(fetched).toBe(1);
      expect(await readFile(join(dir, NEXT), "utf8")).toBe("// 4.18.2\n");
      expect((await stat(join(dir, NEXT))).mode & 0o777).toBe(mode);
      expect(await readFile(join(dir, ".yarnrc.yml"), "utf8")).toBe(`yarnPath: ${NEXT}\n`);
    },
  );
});
