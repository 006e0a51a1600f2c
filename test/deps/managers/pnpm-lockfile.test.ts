import { describe, expect, it } from "vitest";
import { importerSections, readPnpmLockfile } from "../../../src/deps/managers/pnpm/lockfile.js";

/**
 * pnpm-lock.yaml is read for its importers alone (issue #28): `packages:`
 * and `snapshots:`, nearly all of a workspace's lockfile, are never parsed,
 * and pnpm's two-document lockfiles are read from their last document.
 */

const v9 = [
  "lockfileVersion: '9.0'",
  "",
  "settings:",
  "  autoInstallPeers: true",
  "",
  "importers:",
  "",
  "  .:",
  "    devDependencies:",
  "      typescript:",
  "        specifier: ^5.6.0",
  "        version: 5.6.3",
  "",
  "  packages/web:",
  "    dependencies:",
  "      '@demo/lib':",
  "        specifier: workspace:*",
  "        version: link:../lib",
  "      vue:",
  "        specifier: ^3.5.0",
  "        version: 3.5.11(typescript@5.6.3)",
  "",
  "packages:",
  "",
  "  typescript@5.6.3:",
  "    resolution: {integrity: sha512-x}",
  "    engines: {node: '>=14.17'}",
  "    hasBin: true",
  "",
  "snapshots:",
  "",
  "  vue@3.5.11(typescript@5.6.3):",
  "    dependencies:",
  "      # not YAML a parser would accept: never read",
  "      '@vue/shared': [ unclosed",
  "",
].join("\n");

describe("pnpm-lock.yaml", () => {
  it("reads each importer's versions without parsing packages or snapshots", () => {
    const sections = importerSections(v9);
    expect(sections).toContain("importers:");
    expect(sections).not.toContain("packages:\n");
    expect(sections).not.toContain("snapshots:");
    expect(sections).not.toContain("unclosed");
    const reader = readPnpmLockfile(v9);
    expect(reader.versionOf("", "typescript", "^5.6.0")).toBe("5.6.3");
    expect(reader.versionOf("packages/web", "vue", "^3.5.0")).toBe("3.5.11");
    expect(reader.linkedOf("packages/web", "@demo/lib", "workspace:*")).toBe(true);
    expect(reader.linkedOf("packages/web", "vue", "^3.5.0")).toBe(false);
    expect(reader.versionOf("packages/web", "typescript", "^5.6.0")).toBeUndefined();
  });

  it("reads the project's document of a lockfile that starts with pnpm's env document", () => {
    const env = [
      "---",
      "lockfileVersion: '9.0'",
      "",
      "importers:",
      "",
      "  .:",
      "    configDependencies: {}",
      "    packageManagerDependencies:",
      "      pnpm:",
      "        specifier: 12.0.0",
      "        version: 12.0.0",
      "",
      "packages:",
      "",
      "  pnpm@12.0.0:",
      "    resolution: {integrity: sha512-y}",
      "",
      "---",
    ].join("\n");
    const reader = readPnpmLockfile(`${env}\n${v9}`);
    expect(reader.versionOf("", "typescript", "^5.6.0")).toBe("5.6.3");
    expect(reader.versionOf("", "pnpm", "12.0.0")).toBeUndefined();
  });

  it("reads v5's root sections, with Windows line ends", () => {
    const v5 = [
      "lockfileVersion: 5.4",
      "",
      "specifiers:",
      "  left-pad: ^1.3.0",
      "",
      "dependencies:",
      "  left-pad: 1.3.0",
      "",
      "devDependencies:",
      "  react-dom: 18.2.0_react@18.2.0",
      "",
      "packages:",
      "",
      "  /left-pad/1.3.0:",
      "    resolution: {integrity: sha512-z}",
      "",
    ].join("\r\n");
    const reader = readPnpmLockfile(v5);
    expect(reader.versionOf("", "left-pad", "^1.3.0")).toBe("1.3.0");
    expect(reader.versionOf("", "react-dom", "^18.0.0")).toBe("18.2.0");
  });
});
