import { describe, expect, it } from "vitest";
import {
  findValueSpan,
  JsonEditError,
  setDependencySpec,
} from "../../src/deps/package-json-edit.js";
import { nonRegistryReason, rewriteSpec } from "../../src/deps/spec.js";

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

  it("refuses to touch a dependency that is not there", () => {
    expect(() => setDependencySpec('{"dependencies": {}}', "dependencies", "q", "1.0.0")).toThrow(
      JsonEditError,
    );
  });
});

describe("nonRegistryReason", () => {
  it("tells registry ranges from everything npm installs some other way", () => {
    expect(nonRegistryReason("^1.2.3")).toBeNull();
    expect(nonRegistryReason(">=1 <3 || 4.x")).toBeNull();
    expect(nonRegistryReason("./test/fixtures/loader")).toBe("a local path");
    expect(nonRegistryReason("file:../lib")).toBe("a local or workspace package");
    expect(nonRegistryReason("workspace:*")).toBe("a local or workspace package");
    expect(nonRegistryReason("npm:other@^1")).toBe("an npm alias");
    expect(nonRegistryReason("github:o/r#v1")).toBe("a git or URL dependency");
    expect(nonRegistryReason("o/r")).toBe("a git or URL dependency");
    expect(nonRegistryReason("latest")).toBe('"latest" is a dist-tag, not a version range');
  });
});

describe("rewriteSpec", () => {
  it("keeps the range style", () => {
    expect(rewriteSpec("^1.2.3", "2.0.0")).toEqual({ ok: true, spec: "^2.0.0" });
    expect(rewriteSpec("~1.2.3", "1.2.9")).toEqual({ ok: true, spec: "~1.2.9" });
    expect(rewriteSpec("1.2.3", "1.3.0")).toEqual({ ok: true, spec: "1.3.0" });
    expect(rewriteSpec("=1.2.3", "1.3.0")).toEqual({ ok: true, spec: "=1.3.0" });
  });

  it("leaves ranges that already allow the version to the lockfile and skips ones it cannot rewrite", () => {
    expect(rewriteSpec("1.x", "1.4.0")).toEqual({ ok: true, spec: null });
    expect(rewriteSpec(">=1 <2", "2.0.0")).toMatchObject({ ok: false });
  });
});
