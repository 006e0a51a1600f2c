import { describe, expect, it } from "vitest";
import {
  closestRegion,
  describeDifference,
} from "../../../../src/agent/tools/edit/edit-closest.js";

describe("closestRegion", () => {
  const file = ["function a() {", "  return 1;", "}", "function b() {", "  return 2;", "}"];

  it("finds the lines old_string was meant to be, by line votes and by likeness", () => {
    expect(closestRegion(file, ["function b() {", "  return 3;"])).toMatchObject({
      start: 3,
      end: 5,
    });
    expect(closestRegion(file, ["  retrun 2;"])).toMatchObject({ start: 4, end: 5 });
  });

  it("scores one changed word high and unrelated text low", () => {
    const lines = ["var port = 3000;", "module.exports = app;"];
    const near = closestRegion(lines, ["const port = 3000;"]);
    expect(near).toMatchObject({ start: 0, end: 1 });
    expect(near?.score).toBeGreaterThan(0.6);
    expect(closestRegion(["module.exports = app;"], ["var port = 3000;"])?.score).toBeLessThan(0.3);
  });
});

describe("describeDifference", () => {
  it("names the differing words, aligned on what both lines share", () => {
    expect(describeDifference("var port = 3000;", "const port = 3000;", 9, 1)).toBe(
      "line 9 of the file and line 1 of old_string differ at column 1: the file has `var` where old_string has `const`",
    );
  });

  it("says which side has extra characters", () => {
    expect(describeDifference("createServer(", "createSever(", 3, 1)).toMatch(
      /column 9: the file has `r`, which old_string leaves out/,
    );
    expect(describeDifference("a(b)", "a(b, c)", 3, 1)).toMatch(
      /column 4: old_string has `, c`, which the file does not/,
    );
  });

  it("aligns old_string's line when it starts mid-line, and names invisible characters", () => {
    expect(describeDifference("  title = 'Sign\u200Bup';", "title = 'Signup';", 1, 1)).toMatch(
      /column 16: the file has `\u200B` \(starting with a zero-width space U\+200B\), which old_string leaves out/,
    );
  });
});
