import { describe, expect, it } from "vitest";
import {
  lfView,
  toOriginalIndex,
  withRegionEndings,
} from "../../../../src/agent/tools/edit/edit-endings.js";

describe("the LF view of a file", () => {
  const original = "a\r\nb\nc\r\nd";
  const view = lfView(original);

  it("drops each CR before an LF and remembers where", () => {
    expect(view).toEqual({ text: "a\nb\nc\nd", crlfAt: [1, 5], crOnly: false });
  });

  it("maps positions back to the text on disk, leaving a line's CR with its ending", () => {
    // Every character of the view maps to the same character on disk, except
    // that an LF which was CRLF maps to its CR, so the pair stays whole.
    for (let i = 0; i < view.text.length; i++) {
      const onDisk = original[toOriginalIndex(view, i)];
      const expected = view.crlfAt.includes(i) ? "\r" : view.text[i];
      expect(onDisk, `index ${i}`).toBe(expected);
    }
    expect(toOriginalIndex(view, view.text.length)).toBe(original.length);
  });

  it("keeps a lone CR (it is not a line ending read_file hides)", () => {
    expect(lfView("x\r\r\ny")).toEqual({ text: "x\r\ny", crlfAt: [2], crOnly: false });
  });

  it("splits a file with CRs and no LF at all at its CRs, one for one", () => {
    const mac = lfView("a\rb\rc\r");
    expect(mac).toEqual({ text: "a\nb\nc\n", crlfAt: [], crOnly: true });
    expect(toOriginalIndex(mac, 4)).toBe(4);
    expect(withRegionEndings(mac, 0, 3, "A\nX\nB")).toBe("A\rX\rB");
  });
});

describe("withRegionEndings", () => {
  const view = lfView("a\r\nb\nc\r\nd\n");

  it("gives the k-th new line break the replaced region's k-th ending", () => {
    // Region "a\nb\nc" holds CRLF then LF.
    expect(withRegionEndings(view, 0, 5, "A\nB\nC")).toBe("A\r\nB\nC");
  });

  it("gives extra line breaks the region's last ending", () => {
    expect(withRegionEndings(view, 0, 5, "A\nB\nC\nD")).toBe("A\r\nB\nC\nD");
    expect(withRegionEndings(view, 0, 3, "A\nB\nC")).toBe("A\r\nB\r\nC");
  });

  it("uses the line's own ending for a region inside one line", () => {
    expect(withRegionEndings(view, 4, 5, "C\nC2")).toBe("C\r\nC2");
    expect(withRegionEndings(view, 2, 3, "B\nB2")).toBe("B\nB2");
  });

  it("leaves LF-only files alone", () => {
    expect(withRegionEndings(lfView("x\ny\n"), 0, 1, "1\n2")).toBe("1\n2");
  });
});
