import { describe, expect, it } from "vitest";
import { createParsedDeliveries } from "../../src/app/parsed-deliveries.js";

describe("parsed deliveries", () => {
  it("hands the guard's parse to the handler once, null included, and parses what it never saw", () => {
    const parsed = createParsedDeliveries();
    let parses = 0;
    const parse = () => {
      parses += 1;
      return "parsed again";
    };
    parsed.keep("d1", { request: 1 });
    parsed.keep("d2", null);
    expect(parsed.take("d1", parse)).toEqual({ request: 1 });
    expect(parsed.take("d2", parse)).toBeNull();
    expect(parses).toBe(0);
    // Taken already, or never seen: the handler parses it itself.
    expect(parsed.take("d1", parse)).toBe("parsed again");
    expect(parsed.take("d3", parse)).toBe("parsed again");
    expect(parses).toBe(2);
  });

  it("drops the oldest results no handler took, past a thousand", () => {
    const parsed = createParsedDeliveries();
    for (let i = 0; i <= 1_000; i++) parsed.keep(`d${i}`, i);
    expect(parsed.take("d0", () => "gone")).toBe("gone");
    expect(parsed.take("d1", () => "gone")).toBe(1);
    expect(parsed.take("d1000", () => "gone")).toBe(1_000);
  });
});
