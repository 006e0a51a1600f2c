import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeBelowProject } from "../../../src/deps/managers/node-check.js";

/**
 * A job whose commands run an older Node than the project is developed on
 * (immer: its workflows set up Node 24, the job had 20) failed in setup on
 * an engine error nobody tied to the Node. The job says it first.
 */

let root: string;
let bin: string;
let made = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-node-check-"));
  // The commands' `node`: the first on their PATH, as the sandbox shows it.
  bin = join(root, "bin");
  await mkdir(bin);
  await writeFile(join(bin, "node"), "#!/bin/sh\necho v20.5.0\n");
  await chmod(join(bin, "node"), 0o755);
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function check(
  files: Record<string, string>,
  manifest: Record<string, unknown> = {},
): Promise<string | undefined> {
  const dir = join(root, `p${made++}`);
  for (const [path, text] of Object.entries({ ...files, "package.json": "{}" })) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return nodeBelowProject(dir, manifest, { PATH: `${bin}:/usr/bin:/bin`, HOME: root }, {});
}

const workflow = (versions: string) =>
  [
    "on: push",
    "jobs:",
    "  test:",
    "    runs-on: ubuntu-latest",
    "    strategy:",
    `      matrix: { node: [${versions}] }`,
    "    steps:",
    "      - uses: actions/setup-node@v4",
    "        with:",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression, as GitHub reads it
    "          node-version: ${{ matrix.node }}",
    "",
  ].join("\n");

describe("a Node older than the project's", () => {
  it("is said when a version file, the workflows or engines.node want a newer one", async () => {
    expect(await check({ ".nvmrc": "24\n" })).toBe(
      "the project wants Node 24.x (.nvmrc), and the job's commands run Node 20.5.0, the first `node` on the PATH: its install and tests may fail for that alone. Set up that Node before the job (actions/setup-node in the workflow; a newer Node where patchwright runs).",
    );
    expect(await check({ ".github/workflows/ci.yml": workflow("22, 24") })).toContain(
      "the project wants Node 22.x (.github/workflows/ci.yml node-version)",
    );
    expect(await check({}, { engines: { node: ">=22.13" } })).toContain(
      "the project wants Node >=22.13 (package.json engines.node)",
    );
  });

  it("is not said for the same major, a workflow matrix that tests it, a lower floor, or no Node named", async () => {
    expect(await check({ ".nvmrc": "20.18.1\n" })).toBeUndefined();
    expect(await check({ ".github/workflows/ci.yml": workflow("20, 22, 24") })).toBeUndefined();
    expect(await check({}, { engines: { node: ">=18" } })).toBeUndefined();
    expect(await check({})).toBeUndefined();
  });
});
