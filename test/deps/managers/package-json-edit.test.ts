import { describe, expect, it } from "vitest";
import {
  findValueSpan,
  JsonEditError,
  setDependencySpec,
} from "../../../src/deps/managers/package-json-edit.js";
import { specTarget, withAlias } from "../../../src/deps/plan/spec.js";

describe("setDependencySpec", () => {
  it("changes only the spec, keeping tabs, CRLF line ends, key order and the final newline", () => {
    const text =
      '{\r\n\t"name": "x",\r\n\t"dependencies": {\r\n\t\t"b": "^1.0.0",\r\n\t\t"a": "~2.0.0"\r\n\t}\r\n}\r\n';
    expect(setDependencySpec(text, "dependencies", "a", "~2.0.5")).toBe(
      text.replace("~2.0.0", "~2.0.5"),
    );
  });

  it("finds the dependency in the named section, not one of the same name elsewhere", () => {
    const text = `{
  "devDependencies": { "left-pad": "1.0.0" },
  "overrides": { "dependencies": { "left-pad": "1.0.0" } },
  "dependencies": {"left-pad":"1.0.0", "x": "2"}
}`;
    const out = setDependencySpec(text, "dependencies", "left-pad", "1.3.0");
    expect(out).toBe(text.replace('{"left-pad":"1.0.0"', '{"left-pad":"1.3.0"'));
  });

  it("handles escapes and nested values it has to skip", () => {
    const text =
      '{"description": "say \\"hi\\" {", "files": [1, [2, {"a": null}]], "dependencies": {"q": "^1.0.0"}}';
    const span = findValueSpan(text, ["dependencies", "q"]);
    expect(span && text.slice(span.start, span.end)).toBe('"^1.0.0"');
  });

  it("sets the packageManager field at the top, not a dependency of that name", () => {
    const text =
      '{\n  "packageManager": "pnpm@10.12.1",\n  "devDependencies": { "pnpm": "10.12.1" }\n}\n';
    expect(setDependencySpec(text, "packageManager", "pnpm", "pnpm@10.34.8")).toBe(
      text.replace('"pnpm@10.12.1"', '"pnpm@10.34.8"'),
    );
  });

  it("refuses to touch a dependency that is not there", () => {
    expect(() => setDependencySpec('{"dependencies": {}}', "dependencies", "q", "1.0.0")).toThrow(
      JsonEditError,
    );
  });
});

describe("specTarget", () => {
  it("tells registry ranges (aliases included) from everything installed some other way", () => {
    expect(specTarget("a", "^1.2.3")).toEqual({
      kind: "registry",
      package: "a",
      range: "^1.2.3",
      alias: false,
    });
    expect(specTarget("a", ">=1 <3 || 4.x")).toMatchObject({ kind: "registry" });
    expect(specTarget("lib3", "npm:@scope/lib@~3.24.0")).toEqual({
      kind: "registry",
      package: "@scope/lib",
      range: "~3.24.0",
      alias: true,
    });
    expect(specTarget("a", "./test/fixtures/loader")).toEqual({
      kind: "local",
      path: "./test/fixtures/loader",
    });
    expect(specTarget("a", "file:../lib")).toEqual({ kind: "local", path: "../lib" });
    expect(specTarget("a", "workspace:*")).toEqual({ kind: "workspace" });
    expect(specTarget("a", "github:o/r#v1")).toEqual({
      kind: "other",
      reason: "a git or URL dependency",
    });
    expect(specTarget("a", "o/r")).toMatchObject({ reason: "a git or URL dependency" });
    expect(specTarget("a", "latest")).toMatchObject({
      reason: '"latest" is a dist-tag, not a version range',
    });
    expect(specTarget("@std/path", "jsr:^1.0.0")).toMatchObject({
      reason:
        'a JSR package ("jsr:^1.0.0"), from jsr.io rather than the npm registry: not bumped here',
    });
    expect(specTarget("gen", "exec:./gen.js")).toMatchObject({
      reason: 'a exec: dependency ("exec:./gen.js"), not a registry version range',
    });
    expect(specTarget("a", "npm:lib@next")).toMatchObject({
      reason: 'an npm alias without a version range ("npm:lib@next")',
    });
  });

  it("writes a new range inside the alias it came from", () => {
    expect(withAlias("npm:lib@~3.24.0", "~3.24.4")).toBe("npm:lib@~3.24.4");
    expect(withAlias("npm:@s/lib@^1", "^2.0.0")).toBe("npm:@s/lib@^2.0.0");
    expect(withAlias("^1.0.0", "^1.2.0")).toBe("^1.2.0");
  });
});
