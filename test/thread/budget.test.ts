import { describe, expect, it } from "vitest";
import { defaultConfig, type RepoConfig } from "../../src/config/schema.js";
import type { JobRequest } from "../../src/requests/request.js";
import {
  applyRequestBudget,
  type BudgetPhrase,
  budgetFor,
  readBudget,
} from "../../src/thread/budget.js";

const fence = "```";

/** The amounts read from `text` (a number, or "refused"), in order. */
function amounts(text: string): Array<number | "refused"> {
  return readBudget(text).phrases.map((p) => (p.kind === "amount" ? p.usd : "refused"));
}

describe("readBudget: the phrases", () => {
  it.each([
    ["@agent fix this, budget $2", 2],
    ["@agent fix this, Budget $2", 2],
    ["@agent fix this, BUDGET: $2.50", 2.5],
    ["@agent fix this, budget=$3", 3],
    ["@agent fix this with a budget of $4", 4],
    ["@agent fix this, max budget $5", 5],
    ["@agent fix this, maximum budget: $5", 5],
    ["@agent fix this, $6 budget", 6],
    ["@agent fix this, max $2", 2],
    ["@agent fix this, MAX $2", 2],
    ["@agent fix this, maximum $2", 2],
    ["@agent fix this, max cost $2", 2],
    ["@agent fix this, max: $2", 2],
    ["@agent fix this, $2 max", 2],
    ["@agent fix this, $2 maximum", 2],
    ["@agent fix this ($2 max)", 2],
    ["@agent fix this, budget 2 USD", 2],
    ["@agent fix this, budget 2usd", 2],
    ["@agent fix this, budget 3 dollars", 3],
    ["@agent fix this, 2 USD max", 2],
    ["@agent fix this, max 2 dollars", 2],
    ["@agent fix this, budget $0.50", 0.5],
    ["@agent fix this, budget $.75", 0.75],
    ["@agent fix this, budget $1,000", 1000],
    ["@agent fix this, budget $2.", 2],
    ["@agent fix this, budget $2!", 2],
  ])("%s -> %s", (text, usd) => {
    expect(amounts(text)).toEqual([usd]);
  });

  it.each([
    ["at the start", "@agent budget $2 fix the parser"],
    ["right after the phrase", "@agent $2 max: fix the parser"],
    ["in the middle", "@agent fix the parser, max $2, and add a test"],
    ["at the end", "@agent fix the parser. Budget: $2"],
    ["on its own line", "@agent fix the parser\n\nbudget $2\n"],
    ["before the phrase", "budget $2 — @agent fix the parser"],
    ["in a list", "@agent\n- fix the parser\n- budget $2\n"],
  ])("is found in any position: %s", (_where, text) => {
    expect(amounts(text)).toEqual([2]);
  });

  it.each([
    ["$0", "budget $0", "not allowed"],
    ["$0.00", "budget $0.00", "not allowed"],
    ["$00", "max $00", "not allowed"],
    ["$-1", "budget $-1", "not allowed"],
    ["-$1", "budget -$1", "not allowed"],
    ["$-1 max", "$-1 max", "not allowed"],
    ["under a cent", "budget $0.001", "not allowed"],
    ["$1e9", "budget $1e9", "not understood"],
    ["$1e9 max", "$1e9 max", "not understood"],
    ["1e9 USD", "budget 1e9 USD", "not understood"],
    ["$2k", "budget $2k", "not understood"],
    ["$2,5", "budget $2,5", "not understood"],
    ["$0x10", "max $0x10", "not understood"],
    ["$Infinity", "budget $Infinity", "not understood"],
    ["$NaN", "budget $NaN", "not understood"],
    ["a bare $", "budget $", "not understood"],
    ["a bare $ then a word", "budget: $ please", "not understood"],
  ])("refuses %s as a budget, never a cap of 0 or less", (_name, text, verdict) => {
    const { phrases } = readBudget(`@agent fix it, ${text}`);
    expect(phrases).toHaveLength(1);
    expect(phrases[0]).toMatchObject({ kind: "refused", verdict });
  });

  it("reads a huge amount as digits, never as an exponent", () => {
    expect(amounts("@agent fix, budget $9999999")).toEqual([9_999_999]);
    expect(amounts("@agent fix, $9999999 max")).toEqual([9_999_999]);
    // More digits than a double holds: read, and left for the ceiling to cap.
    const [huge] = readBudget(`@agent fix, budget $${"9".repeat(400)}`).phrases;
    expect(huge?.kind).toBe("amount");
  });

  it.each([
    ["no budget word", "@agent make it cost $2"],
    ["a longer word", "@agent fix this, $2 maxi"],
    ["max followed by a hyphen", "@agent set $2 max-width"],
    ["a budget word without money", "@agent fix the budget calculation"],
    ["max without money", "@agent allow max 3 retries"],
    ["max with a bare dollar sign", "@agent escape the max $ sign"],
    ["an amount cut off by a comma", "@agent items cost $2, max 3 per order"],
    ["part of a word", "@agent fix nobudget $2"],
    ["words on two lines", "@agent we are over budget\n$2 is the price now"],
    ["words in two paragraphs", "@agent trim the max\n\n$2 buys it"],
    ["an e-mail-like word", "@agent ping me@max $2"],
    ["in inline code", "@agent set the limit to `budget $2` in the docs"],
    ["in double backticks", "@agent use ``$2 max`` as the label"],
    ["in a fence", `@agent fix it\n\n${fence}\nbudget $2\n${fence}\n`],
    [
      "in a quoted earlier comment",
      "> @agent fix the parser, budget $100\n\n@agent do what they asked",
    ],
    ["in a nested quote", "> > max $100\n\n@agent go"],
    ["in an HTML comment", "@agent fix it <!-- budget $100 -->"],
  ])("reads nothing from %s", (_name, text) => {
    expect(readBudget(text)).toEqual({ phrases: [], text });
  });

  it("reads every phrase in the prose, and only there", () => {
    const text = "> budget $100\n\n@agent fix it, budget $3 and `max $50`, $2 max";
    expect(amounts(text)).toEqual([3, 2]);
  });

  it("reads `budget $2 max` as one budget", () => {
    expect(amounts("@agent fix it, budget $2 max")).toEqual([2]);
  });
});

describe("readBudget: the instruction without the phrase", () => {
  it.each([
    ["@agent fix this, budget $2", "@agent fix this"],
    ["@agent fix this, budget $2.", "@agent fix this."],
    ["@agent budget $2: fix this", "@agent fix this"],
    ["@agent $2 max, fix this", "@agent fix this"],
    ["@agent fix this (budget $2) now", "@agent fix this now"],
    ["@agent fix this ($2 max).", "@agent fix this."],
    ["@agent fix this max $2 and add a test", "@agent fix this and add a test"],
    ["@agent fix the parser\n\nbudget $2\n", "@agent fix the parser\n\n\n"],
    ["@agent fix it, budget $0", "@agent fix it"],
  ])("%j -> %j", (text, stripped) => {
    expect(readBudget(text).text).toBe(stripped);
  });

  it("leaves quotes and code as they were", () => {
    const text = "> budget $100\n\n@agent fix `max $5`, budget $2";
    expect(readBudget(text).text).toBe("> budget $100\n\n@agent fix `max $5`");
  });
});

function config(overrides: Partial<RepoConfig> = {}): RepoConfig {
  return { ...defaultConfig(), ...overrides };
}

const amount = (usd: number, written = `$${usd}`): BudgetPhrase => ({
  kind: "amount",
  usd,
  written,
});

describe("budgetFor", () => {
  it("keeps the usual cap, and says nothing, when no budget was named", () => {
    expect(budgetFor([], config({ maxCostUsd: 5 }))).toEqual({ usd: 5 });
  });

  it("lowers the cap to a smaller budget", () => {
    const budget = budgetFor([amount(0.5)], config({ maxCostUsd: 5 }));
    expect(budget.usd).toBe(0.5);
    expect(budget.note).toContain("Budget $0.50, as requested");
  });

  it("raises the cap up to max_cost_per_request_usd", () => {
    const budget = budgetFor([amount(8)], config({ maxCostUsd: 5, maxCostPerRequestUsd: 10 }));
    expect(budget.usd).toBe(8);
  });

  it("caps a budget above max_cost_per_request_usd, and says so", () => {
    const budget = budgetFor([amount(50)], config({ maxCostUsd: 5, maxCostPerRequestUsd: 10 }));
    expect(budget.usd).toBe(10);
    expect(budget.note).toContain("budget $50.00 capped at $10.00 (max_cost_per_request_usd)");
  });

  it("caps at max_cost_usd when max_cost_per_request_usd is not set", () => {
    const budget = budgetFor([amount(50)], config({ maxCostUsd: 5 }));
    expect(budget.usd).toBe(5);
    expect(budget.note).toContain("budget $50.00 capped at $5.00 (max_cost_usd)");
  });

  it("caps an amount too large to count", () => {
    const budget = budgetFor([amount(Number.POSITIVE_INFINITY)], config({ maxCostUsd: 5 }));
    expect(budget.usd).toBe(5);
    expect(budget.note).toContain("too large to count");
  });

  it("takes the lowest of several budgets", () => {
    expect(budgetFor([amount(3), amount(2)], config()).usd).toBe(2);
  });

  it("refuses a budget it cannot use and keeps the usual cap", () => {
    const [phrase] = readBudget("@agent fix it, budget $0").phrases;
    const budget = budgetFor(phrase ? [phrase] : [], config({ maxCostUsd: 5 }));
    expect(budget.usd).toBe(5);
    expect(budget.note).toContain("`budget $0` was not allowed as a budget");
    expect(budget.note).toContain("usual cap of $5.00");
  });

  it.each([
    "budget $0",
    "budget $0.00",
    "budget $-1",
    "budget $1e9",
    "budget $",
    "$-1 max",
    `budget $${"9".repeat(400)}`,
    "budget $9999999",
  ])("never gives a cap of 0, below 0 or not finite: %s", (text) => {
    const { phrases } = readBudget(`@agent fix it, ${text}`);
    const budget = budgetFor(phrases, config({ maxCostUsd: 5, maxCostPerRequestUsd: 20 }));
    expect(Number.isFinite(budget.usd)).toBe(true);
    expect(budget.usd).toBeGreaterThan(0);
    expect(budget.usd).toBeLessThanOrEqual(20);
  });
});

function request(instruction: string, overrides: Partial<JobRequest> = {}): JobRequest {
  return {
    trigger: "issue_comment",
    deliveryId: "d1",
    repo: { owner: "o", name: "r", cloneUrl: "x", defaultBranch: "main" },
    target: { kind: "issue", number: 7, title: "t", body: "", state: "open", locked: false },
    instruction,
    source: { kind: "issue_comment", id: 1 },
    requester: { login: "octocat", id: 1, type: "User" },
    ...overrides,
  };
}

describe("applyRequestBudget", () => {
  it("sets the job's cap and takes the phrase out of the instruction", () => {
    const out = applyRequestBudget(
      config({ maxCostUsd: 5 }),
      request("@agent fix this, budget $2"),
      undefined,
    );
    expect(out.config.maxCostUsd).toBe(2);
    expect(out.config.budgetNote).toContain("Budget $2.00");
    expect(out.request.instruction).toBe("@agent fix this");
    expect(out.earlierRequests).toBeUndefined();
  });

  it("changes nothing for a request without a budget", () => {
    const asked = request("@agent fix this");
    const base = config({ maxCostUsd: 5 });
    const out = applyRequestBudget(base, asked, []);
    expect(out.config).toEqual(base);
    expect(out.request).toBe(asked);
    expect(out.earlierRequests).toEqual([]);
  });

  it("reads no budget from a label's instruction (the issue's own text) or an event", () => {
    const labeled = request("Issue title\n\nbudget $100", {
      trigger: "issue_labeled",
      source: { kind: "label", label: "agent" },
    });
    const out = applyRequestBudget(config({ maxCostUsd: 5 }), labeled, undefined);
    expect(out.config.maxCostUsd).toBe(5);
    expect(out.config.budgetNote).toBeUndefined();
    expect(out.request.instruction).toBe("Issue title\n\nbudget $100");
  });

  it("reads the budget from a new issue's description, its requester's own words", () => {
    const opened = request("@agent fix the parser, budget $3", {
      trigger: "issue_opened",
      source: { kind: "issue", id: 41 },
    });
    const out = applyRequestBudget(config({ maxCostUsd: 5 }), opened, undefined);
    expect(out.config.maxCostUsd).toBe(3);
    expect(out.request.instruction).not.toContain("$3");
  });

  it("takes the newest budget among folded requests, and strips every one", () => {
    const out = applyRequestBudget(
      config({ maxCostUsd: 5, maxCostPerRequestUsd: 10 }),
      request("@agent also add a test"),
      [request("@agent fix it, budget $1"), request("@agent and the docs, budget $3")],
    );
    expect(out.config.maxCostUsd).toBe(3);
    expect(out.earlierRequests?.map((r) => r.instruction)).toEqual([
      "@agent fix it",
      "@agent and the docs",
    ]);
  });
});
