import { describe, expect, it } from "vitest";
import { codeScopedNames } from "../../src/github/markdown.js";

describe("codeScopedNames", () => {
  it("puts each scoped package name in code, where GitHub would read a team mention", () => {
    expect(
      codeScopedNames(
        'passed over 11.25.2: @trpc/tanstack-react-query 11.22.1 asks for @trpc/client "11.22.1"',
      ),
    ).toBe(
      'passed over 11.25.2: `@trpc/tanstack-react-query` 11.22.1 asks for `@trpc/client` "11.22.1"',
    );
    expect(codeScopedNames("@types/node (package.json), @vitest/browser-playwright.")).toBe(
      "`@types/node` (package.json), `@vitest/browser-playwright`.",
    );
  });

  it("leaves code, addresses, paths and plain names as they are", () => {
    for (const text of [
      "`@types/node` is in code already",
      "run `npm install @scope/pkg@2` and `corepack use pnpm@10`",
      "mail me at someone@example.com/notes",
      "node_modules/@types/node/index.d.ts",
      "https://www.npmjs.com/package/@types/node",
      "vitest 4.1.11 asks for coverage",
      "@octocat asked for it",
    ])
      expect(codeScopedNames(text)).toBe(text);
  });
});
