import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  OutsideWorkspaceError,
  readWorkspaceText,
  writeWorkspaceFile,
} from "../../src/sandbox/host-files.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/** A workspace and, beside it, a host file its links point at. */
async function world() {
  const root = await makeTempDir("pw-ws-");
  const host = await makeTempDir("pw-host-");
  await writeFile(join(host, "secret"), "host secret\n");
  await writeFile(join(root, "package.json"), "{}\n");
  return { root, host };
}

describe("reading and writing workspace files from the host", () => {
  it("refuses to read through a link that leaves the workspace, and reads links that stay", async () => {
    const { root, host } = await world();
    await symlink(join(host, "secret"), join(root, "AGENTS.md"));
    await symlink(host, join(root, "pkg"));
    await symlink("package.json", join(root, "alias.json"));
    await expect(readWorkspaceText(root, "AGENTS.md")).rejects.toBeInstanceOf(
      OutsideWorkspaceError,
    );
    await expect(readWorkspaceText(root, "pkg/secret")).rejects.toBeInstanceOf(
      OutsideWorkspaceError,
    );
    expect(await readWorkspaceText(root, "alias.json")).toBe("{}\n");
    await expect(readWorkspaceText(root, "missing")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("replaces a link instead of writing through it, and never creates folders outside", async () => {
    const { root, host } = await world();
    await symlink(join(host, "secret"), join(root, "package-lock.json"));
    await writeWorkspaceFile(root, "package-lock.json", Buffer.from("lock\n"));
    expect(await readFile(join(host, "secret"), "utf8")).toBe("host secret\n");
    expect(await readFile(join(root, "package-lock.json"), "utf8")).toBe("lock\n");

    await symlink(host, join(root, "out"));
    await expect(
      writeWorkspaceFile(root, "out/deep/new.txt", Buffer.from("x")),
    ).rejects.toBeInstanceOf(OutsideWorkspaceError);
    await expect(readFile(join(host, "deep", "new.txt"))).rejects.toThrow();
    await expect(writeWorkspaceFile(root, "out/secret", null)).rejects.toBeInstanceOf(
      OutsideWorkspaceError,
    );
    expect(await readFile(join(host, "secret"), "utf8")).toBe("host secret\n");

    await mkdir(join(root, "src"));
    await writeWorkspaceFile(root, "src/a/b.txt", Buffer.from("b"));
    expect(await readFile(join(root, "src/a/b.txt"), "utf8")).toBe("b");
  });
});
