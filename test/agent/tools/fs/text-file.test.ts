import { describe, expect, it } from "vitest";
import {
  decodeTextFile,
  shellQuote,
  unreadableReason,
  usesCrlf,
} from "../../../../src/agent/tools/fs/text-file.js";

describe("decodeTextFile", () => {
  it("keeps the byte order mark so an edit writes it back", () => {
    expect(decodeTextFile(Buffer.from("\uFEFFa\n"), "a.txt", "read")).toBe("\uFEFFa\n");
  });

  it("names the first byte that is not UTF-8 and its line", () => {
    const latin1 = Buffer.from("ok\nstill ok\ncaf\xe9\n", "latin1");
    expect(() => decodeTextFile(latin1, "menu.txt", "read")).toThrow(
      /read_file cannot show menu\.txt: it is not valid UTF-8 \(byte 0xE9 on line 3\)/,
    );
  });

  it("refuses overlong forms and UTF-16 surrogates, which a lenient decoder would mangle", () => {
    // "/" as an overlong two-byte form, and an encoded lone surrogate U+D800.
    expect(() => decodeTextFile(Buffer.from([0x61, 0xc0, 0xaf]), "a", "read")).toThrow(
      /0xC0 on line 1/,
    );
    expect(() => decodeTextFile(Buffer.from([0x0a, 0xed, 0xa0, 0x80]), "a", "read")).toThrow(
      /0xED on line 2/,
    );
  });

  it("tells UTF-16 apart from binary, and says how to convert it", () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("x=1", "utf16le")]);
    expect(() => decodeTextFile(utf16, "a.ini", "edit")).toThrow(
      /edit_file cannot change a\.ini .*UTF-16 text.*iconv -f UTF-16 -t UTF-8 a\.ini/,
    );
    expect(() => decodeTextFile(Buffer.from([0x50, 0x00]), "b.bin", "edit")).toThrow(
      /binary file \(it contains NUL bytes\).*run_shell/,
    );
  });

  it("tells write_file how to replace a file it may not overwrite unseen", () => {
    expect(unreadableReason("logo.png", Buffer.from([0x89, 0x00]))).toMatch(
      /write_file will not overwrite logo\.png unseen.*`rm logo\.png`.*then call write_file/,
    );
    expect(unreadableReason("a.txt", Buffer.from("fine\n"))).toBeNull();
  });
});

describe("shellQuote", () => {
  it("quotes only paths the shell would split or expand", () => {
    expect(shellQuote("src/a-b_c.ts")).toBe("src/a-b_c.ts");
    expect(shellQuote("docs/my file's.md")).toBe("'docs/my file'\\''s.md'");
  });
});

describe("usesCrlf", () => {
  it("is true when most lines end in CRLF", () => {
    expect(usesCrlf("a\r\nb\r\nc\n")).toBe(true);
    expect(usesCrlf("a\r\nb\nc\n")).toBe(false);
    expect(usesCrlf("a\nb\n")).toBe(false);
  });
});
