import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { editManifest } from "../../../src/deps/managers/bump.js";
import {
  CatalogEditError,
  setCatalogSpec,
  setYamlString,
} from "../../../src/deps/managers/catalog-edit.js";
import { JsonEditError, setJsonString } from "../../../src/deps/managers/package-json-edit.js";

const WORKSPACE = [
  "packages:",
  "  - packages/*",
  "",
  "# Shared versions.",
  "catalog:",
  "  react: ^18.2.0 # keep in step with react-dom",
  "  'react-dom': \"^18.2.0\"",
  "  vite: '5.0.0'",
  "",
  "catalogs:",
  "  legacy:",
  "    react: ~17.0.2",
  "  default:",
  "    zod: ^3.22.0",
  "",
  "onlyBuiltDependencies:",
  "  - esbuild",
  "",
].join("\n");

describe("setCatalogSpec", () => {
  it("replaces only the value's characters, in its own quoting", () => {
    const out = setCatalogSpec(WORKSPACE, "default", "react", "^18.3.1");
    expect(out).toBe(WORKSPACE.replace("react: ^18.2.0 #", "react: ^18.3.1 #"));
    expect(setCatalogSpec(WORKSPACE, "default", "react-dom", "^18.3.1")).toBe(
      WORKSPACE.replace("'react-dom': \"^18.2.0\"", "'react-dom': \"^18.3.1\""),
    );
    expect(setCatalogSpec(WORKSPACE, "default", "vite", "5.4.0")).toBe(
      WORKSPACE.replace("vite: '5.0.0'", "vite: '5.4.0'"),
    );
  });

  it("edits a named catalog, and catalogs.default for the default one when catalog: lacks the name", () => {
    const legacy = setCatalogSpec(WORKSPACE, "legacy", "react", "~17.0.3");
    expect(legacy).toBe(WORKSPACE.replace("react: ~17.0.2", "react: ~17.0.3"));
    expect(parse(legacy).catalog.react).toBe("^18.2.0");
    const zod = setCatalogSpec(WORKSPACE, "default", "zod", "^3.25.0");
    expect(parse(zod).catalogs.default.zod).toBe("^3.25.0");
  });

  it("quotes a plain value that could not stay plain", () => {
    const out = setCatalogSpec(WORKSPACE, "default", "react", ">=18.3.1 <19");
    expect(parse(out).catalog.react).toBe(">=18.3.1 <19");
    expect(out).toContain("# keep in step with react-dom");
  });

  it("refuses a name the catalog does not have, and a file that is no YAML", () => {
    expect(() => setCatalogSpec(WORKSPACE, "legacy", "vite", "5.4.0")).toThrow(CatalogEditError);
    expect(() => setCatalogSpec(WORKSPACE, "nope", "react", "1.0.0")).toThrow(
      /catalog "nope" has no "react"/,
    );
    expect(() => setCatalogSpec("catalog: [", "default", "react", "1.0.0")).toThrow(
      /not valid YAML/,
    );
  });

  it("edits bun's catalogs in package.json, under workspaces or at the top level, one value only", () => {
    const manifest = `${JSON.stringify(
      {
        name: "root",
        dependencies: { react: "catalog:" },
        workspaces: { packages: ["packages/*"], catalog: { react: "^18.2.0" } },
        catalogs: { legacy: { react: "~17.0.2" } },
      },
      null,
      4,
    )}\n`;
    const out = setCatalogSpec(manifest, "default", "react", "^18.3.1");
    expect(out).toBe(manifest.replace('"react": "^18.2.0"', '"react": "^18.3.1"'));
    expect(setCatalogSpec(manifest, "legacy", "react", "~17.0.3")).toBe(
      manifest.replace('"react": "~17.0.2"', '"react": "~17.0.3"'),
    );
    expect(() => setCatalogSpec(manifest, "default", "vite", "5.4.0")).toThrow(
      /default catalog has no "vite"/,
    );
  });

  it("is what a bump's edits of pnpm-workspace.yaml run through", () => {
    const out = editManifest(WORKSPACE, [
      { section: "dependencies", name: "react", spec: "^18.3.1", catalog: "default" },
      { section: "devDependencies", name: "react", spec: "~17.0.3", catalog: "legacy" },
    ]);
    expect(parse(out).catalog.react).toBe("^18.3.1");
    expect(parse(out).catalogs.legacy.react).toBe("~17.0.3");
  });
});

describe("one string put back where it was written (an override)", () => {
  it("in pnpm-workspace.yaml, in its own quoting; undefined where there is none", () => {
    const yaml = "packages: []\noverrides:\n  fx-a: '1.1.0' # Renovate\n  \"@s/b@^2\": 2.1.0\n";
    expect(setYamlString(yaml, ["overrides", "fx-a"], "1.0.0")).toBe(
      yaml.replace("'1.1.0'", "'1.0.0'"),
    );
    expect(setYamlString(yaml, ["overrides", "@s/b@^2"], ">=2.0.0 <2.1.0")).toBe(
      yaml.replace(": 2.1.0", ': ">=2.0.0 <2.1.0"'),
    );
    expect(setYamlString(yaml, ["overrides", "fx-z"], "1.0.0")).toBeUndefined();
    expect(setYamlString(yaml, ["packages", "fx-a"], "1.0.0")).toBeUndefined();
    expect(() => setYamlString("a: [\n", ["a"], "1")).toThrow(CatalogEditError);
  });

  it("in package.json, npm's nested '.' form included; a value that is not a string is an error", () => {
    const json = `{\n  "overrides": {\n    "fx-b": { ".": "2.0.1", "fx-dep": "1.0.0" },\n    "fx-c": "3.0.0"\n  }\n}\n`;
    expect(setJsonString(json, ["overrides", "fx-b", "."], "2.0.0")).toBe(
      json.replace('".": "2.0.1"', '".": "2.0.0"'),
    );
    expect(setJsonString(json, ["overrides", "fx-c"], "3.0.1")).toBe(
      json.replace('"3.0.0"', '"3.0.1"'),
    );
    expect(setJsonString(json, ["overrides", "fx-d"], "1.0.0")).toBeUndefined();
    expect(() => setJsonString(json, ["overrides", "fx-b"], "2.0.0")).toThrow(JsonEditError);
  });
});
