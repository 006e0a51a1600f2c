import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * Every dependency in the lockfile with an install script is named in
 * package.json's `allowScripts`, approved or denied: npm 12 skips the
 * scripts of any other, so a new one would install a checkout without its
 * binary or native build, and npm 11 warns on every `npm ci`.
 */

const read = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

describe("install scripts", () => {
  it("names every dependency with one in allowScripts", () => {
    const lock = read("package-lock.json") as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const withScripts = new Set(
      Object.entries(lock.packages)
        .filter(([path, entry]) => path !== "" && entry.hasInstallScript)
        .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length)),
    );
    const allowScripts = (read("package.json").allowScripts ?? {}) as Record<string, boolean>;
    expect(withScripts.size).toBeGreaterThan(0);
    expect([...withScripts].filter((name) => !(name in allowScripts)).sort()).toEqual([]);
  });
});
