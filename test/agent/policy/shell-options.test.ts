import { describe, expect, it } from "vitest";
import { pathLikeTail, splitOption } from "../../../src/agent/policy/shell-options.js";

const valued = new Set(["-o", "-t", "--output"]);

describe("splitOption", () => {
  it.each([
    ["-o", { name: "-o", glued: undefined, takesValue: true }],
    ["-ofile", { name: "-o", glued: "file", takesValue: true }],
    ["-vto/x", { name: "-t", glued: "o/x", takesValue: true }],
    ["-rv", { name: "-rv", glued: undefined, takesValue: false }],
    ["-i.bak", { name: "-i.bak", glued: undefined, takesValue: false }],
    ["--output=x", { name: "--output", glued: "x", takesValue: true }],
    ["--output", { name: "--output", glued: undefined, takesValue: true }],
    ["--other=/etc", { name: "--other", glued: "/etc", takesValue: false }],
  ])("%j", (word, expected) => {
    expect(splitOption(word, valued)).toEqual(expected);
  });
});

describe("pathLikeTail", () => {
  it.each([
    ["-I../include", "../include"],
    ["-c/tmp/x.js", "/tmp/x.js"],
    ["-xfoo~/x", "~/x"],
    ["-rf", undefined],
    ["-k1,2", undefined],
    ["-i.bak", undefined],
  ])("%j", (word, expected) => {
    expect(pathLikeTail(word)).toBe(expected);
  });
});
