import { describe, expect, it } from "vitest";
import { createStepReporter } from "../../src/cli/step-progress.js";

describe("job steps in the terminal", () => {
  it("prints each step plain, without Markdown backticks, and puts it on the status line", () => {
    let out = "";
    const events: string[] = [];
    const report = createStepReporter({
      write: (text) => {
        out += text;
      },
      status: {
        start: (text) => events.push(`start ${text}`),
        stop: () => events.push("stop"),
      },
    });
    report("Preparing the workspace");
    report("Verifying: `npm test`");
    report("Running setup: `echo `date` > stamp`");
    report("Pushing `agent/fix-add`");
    expect(out).toBe(
      [
        "Preparing the workspace…",
        "Verifying: npm test…",
        "Running setup: echo `date` > stamp…",
        "Pushing agent/fix-add…",
        "",
      ].join("\n"),
    );
    expect(events.slice(0, 4)).toEqual([
      "stop",
      "start Preparing the workspace",
      "stop",
      "start Verifying: npm test",
    ]);
  });

  it("prints a step's note plain, each of its code spans", () => {
    let out = "";
    const report = createStepReporter({
      write: (text) => {
        out += text;
      },
      status: { start: () => {}, stop: () => {} },
    });
    report(
      "Fetching `pnpm`",
      "Pin it (`corepack use pnpm@<version>` writes `+sha512.…`), or set `COREPACK_INTEGRITY_KEYS=0`",
    );
    expect(out).toBe(
      "  ⚠ Pin it (corepack use pnpm@<version> writes +sha512.…), or set COREPACK_INTEGRITY_KEYS=0\n",
    );
  });
});
