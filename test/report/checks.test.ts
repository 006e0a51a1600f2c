import { describe, expect, it } from "vitest";
import type { CommandRecord } from "../../src/agent/command-log.js";
import { checksRun } from "../../src/report/checks.js";
import { splitShellCommand } from "../../src/report/shell-split.js";

function record(command: string, exit = "0"): CommandRecord {
  return { command, exit, passed: exit === "0", durationMs: 1, outputTail: `exit code: ${exit}` };
}

const isCheck = (command: string) => checksRun([record(command)]).length === 1;
const masked = (command: string) => checksRun([record(command)])[0]?.statusMasked;

describe("checksRun", () => {
  it.each([
    "npm test",
    "npm t",
    "npm run lint",
    "npm run test:unit -- --grep router",
    "npm run build",
    "npm run typecheck",
    "npm run type-check",
    "npm --prefix packages/core test",
    "npm exec -- eslint .",
    "npx mocha test/app.router.js",
    "npx --yes tsc --noEmit",
    "npx -p typescript tsc",
    "npx vitest run test/a.test.ts",
    "npx biome check src",
    "npx prettier --check .",
    "npx eslint lib/",
    "yarn test",
    "yarn lint",
    "yarn run build",
    "yarn workspace @scope/web test",
    "pnpm test",
    "pnpm -r build",
    "pnpm --filter web lint",
    "pnpm exec jest",
    "bun test",
    "node --test",
    "node ./node_modules/.bin/mocha test/",
    "./node_modules/.bin/jest --ci",
    "node_modules/.bin/tsc -p .",
    "mocha",
    "jest --watch=false",
    "tsc --noEmit",
    "eslint .",
    "make",
    "make test",
    "make -j4 check",
    "cargo test",
    "cargo build --release",
    "cargo clippy -- -D warnings",
    "cargo fmt -- --check",
    "go test ./...",
    "go vet ./...",
    "go build ./cmd/x",
    "pytest -q",
    "python -m pytest tests/",
    "python3 -m unittest discover",
    "python manage.py test",
    "poetry run pytest",
    "tox -e py312",
    "ruff check .",
    "black --check .",
    "./gradlew test",
    "mvn -q verify",
    "bundle exec rspec",
    "dotnet test",
  ])("counts %s as a check", (command) => {
    expect(isCheck(command)).toBe(true);
  });

  it.each([
    "ls -la",
    "cat package.json",
    "git status",
    "git diff --stat",
    "npm install",
    "npm ci",
    "npm run dev",
    "npm run",
    "yarn install",
    "pnpm add -D zod",
    "npx prettier --write .",
    "make clean",
    "go mod tidy",
    "cargo fmt",
    "grep -rn test lib/",
    "echo 'npm test'",
    "node -e \"console.log(require('./package.json').scripts.test)\"",
    "python -m pip install -r requirements.txt",
    "test -f index.js",
    "cat > notes.txt <<'EOF'\nnpm test\nEOF",
  ])("does not count %s", (command) => {
    expect(isCheck(command)).toBe(false);
  });

  it("finds checks inside a line: after cd, behind env, timeout, a subshell or sh -c", () => {
    for (const command of [
      "cd packages/core && npm test",
      "NODE_ENV=test npx mocha",
      "env CI=1 FORCE_COLOR=0 npm test",
      "timeout -s KILL 120 npm test",
      "(cd web && yarn lint)",
      "bash -c 'npm run build'",
      "cat > x.txt <<EOF\nhello\nEOF\nnpm test",
    ]) {
      expect(isCheck(command), command).toBe(true);
    }
  });

  it("is not fooled by names of object properties, and stays quick on nested wrappers", () => {
    for (const command of [
      "constructor test",
      "toString",
      "__proto__ run test",
      "hasOwnProperty",
    ]) {
      expect(isCheck(command), command).toBe(false);
    }
    const started = performance.now();
    expect(isCheck(`${"env ".repeat(200)}ls`)).toBe(false);
    expect(isCheck(`${"timeout 5 ".repeat(3)}npm test`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("keeps every run in order, with its exit status and output", () => {
    const runs = checksRun([
      record("npx mocha test/app.router.js", "1"),
      record("cat lib/router/index.js"),
      record("npm run lint", "1"),
      record("npx mocha test/app.router.js"),
      record("npm test", "denied"),
    ]);
    expect(runs.map((r) => [r.command, r.exit, r.passed])).toEqual([
      ["npx mocha test/app.router.js", "1", false],
      ["npm run lint", "1", false],
      ["npx mocha test/app.router.js", "0", true],
      ["npm test", "denied", false],
    ]);
    expect(runs[0]?.outputTail).toBe("exit code: 1");
  });

  it("says when the exit status is not the check's own", () => {
    expect(masked("npm test")).toBe(false);
    expect(masked("cd x && npm test && echo done")).toBe(false);
    expect(masked("npm test 2>&1 | tail -20")).toBe(true);
    expect(masked("npx mocha || true")).toBe(true);
    expect(masked("npm test; echo exit=$?")).toBe(true);
    expect(masked("npm test &")).toBe(true);
    expect(masked("npm test;")).toBe(false);
    expect(masked("set -o pipefail; npm test 2>&1 | tail -20")).toBe(false);
    expect(masked("npm run lint | tee lint.log && npm test")).toBe(true);
  });
});

describe("splitShellCommand", () => {
  it("splits on operators outside quotes and keeps redirections in their words", () => {
    expect(splitShellCommand(`cd "a b" && npm test -- --grep 'x && y' 2>&1 | tail -5`)).toEqual([
      { words: ["cd", "a b"], next: "&&" },
      { words: ["npm", "test", "--", "--grep", "x && y", "2>&1"], next: "|" },
      { words: ["tail", "-5"] },
    ]);
    expect(splitShellCommand("a &&\n  b # c; d\nc $(x; y) \\\n  d")).toEqual([
      { words: ["a"], next: "&&" },
      { words: ["b"], next: ";" },
      { words: ["c", "$(x; y)", "d"] },
    ]);
  });
});
