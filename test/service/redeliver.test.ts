import { describe, expect, it } from "vitest";
import { type Delivery, redeliverFailed } from "../../src/service/redeliver.js";

const NOW = Date.parse("2026-12-06T12:00:00Z");
const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();

let nextId = 1;
const delivery = (
  guid: string,
  minutesAgo: number,
  status: number,
  event = "issue_comment",
): Delivery => ({ id: nextId++, guid, delivered_at: at(minutesAgo), status_code: status, event });

/** GitHub's listing: newest first, two to a page. */
function client(deliveries: Delivery[]) {
  const asked: number[] = [];
  let pagesRead = 0;
  return {
    asked,
    pagesRead: () => pagesRead,
    async *pages() {
      for (let i = 0; i < deliveries.length; i += 2) {
        pagesRead += 1;
        yield deliveries.slice(i, i + 2);
      }
    },
    async redeliver(id: number) {
      asked.push(id);
    },
  };
}

const options = {
  now: NOW,
  lookBackMs: 60 * 60_000,
  events: new Set(["issue_comment", "push"]),
  maxAttempts: 3,
};

describe("redeliverFailed", () => {
  it("asks again for what never arrived, once per delivery, and leaves the rest", async () => {
    // Newest first, as GitHub lists them.
    const deploy = delivery("deploy", 5, 0);
    const outage = delivery("redis-away", 20, 503);
    const deliveries = [
      delivery("retried", 2, 200),
      delivery("fine", 3, 200),
      deploy,
      delivery("retried", 8, 502),
      delivery("not-ours", 9, 0, "star"),
      delivery("hopeless", 10, 502),
      delivery("hopeless", 11, 0),
      delivery("hopeless", 12, 503),
      delivery("hopeless", 13, 0),
      delivery("refused", 14, 400),
      outage,
      delivery("redis-away", 30, 0),
      delivery("too-old", 61, 0),
      delivery("beyond", 62, 0),
    ];
    const github = client(deliveries);
    const { asked } = await redeliverFailed(github, options);
    // The newest failed attempt of each: "retried" arrived the second time,
    // "hopeless" failed four times (the first and three asked for again),
    // "refused" was answered 400 by the App itself (another secret: a copy
    // would meet the same), "star" is no event the App acts on, "too-old" is
    // past the look-back.
    expect(github.asked).toEqual([deploy.id, outage.id]);
    expect(asked.map((d) => d.guid)).toEqual(["deploy", "redis-away"]);
    // Reading stops at the first delivery older than the look-back.
    expect(github.pagesRead()).toBe(7);
  });

  it("asks for nothing when every delivery arrived", async () => {
    const github = client([delivery("a", 1, 200), delivery("b", 2, 202)]);
    expect((await redeliverFailed(github, options)).asked).toEqual([]);
    expect(github.asked).toEqual([]);
  });
});
