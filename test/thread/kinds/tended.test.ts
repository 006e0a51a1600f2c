import { describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import type { JobRequest } from "../../../src/requests/request.js";
import { tendedPullRequest } from "../../../src/thread/kinds/tended.js";
import type { ThreadServices } from "../../../src/thread/services.js";

/**
 * Which pull requests an event's job tends, against an octokit that
 * answers pulls.get and the pull request's commits (or refuses them).
 */

const BOT = "patchwright[bot]";
const config = configSchema.parse({ tend_bot_prs: { bots: ["dependabot[bot]"] } });

function services(pull: Record<string, unknown>, commitAuthors: string[] | "refused") {
  const octokit = {
    rest: {
      pulls: {
        get: async () => ({ data: pull }),
        listCommits: "listCommits",
      },
    },
    paginate: async () => {
      if (commitAuthors === "refused") throw Object.assign(new Error("Not Found"), { status: 404 });
      return commitAuthors.map((login) => ({ author: login ? { login } : null }));
    },
  };
  return { octokit, botLogin: BOT } as unknown as Pick<ThreadServices, "octokit" | "botLogin">;
}

const dependabotPull = (overrides: Record<string, unknown> = {}) => ({
  state: "open",
  head: { ref: "dependabot/npm_and_yarn/fx-greet-2.0.0", sha: "abc", repo: { full_name: "o/r" } },
  base: { repo: { full_name: "o/r" } },
  user: { login: "dependabot[bot]" },
  mergeable: false,
  mergeable_state: "dirty",
  ...overrides,
});

const request = (task: "fix_ci" | "update_branch") =>
  ({
    repo: { owner: "o", name: "r" },
    target: { kind: "pull_request", number: 31 },
    task,
    ...(task === "fix_ci" ? { ci: { headSha: "abc" } } : {}),
  }) as unknown as JobRequest;

const noSleep = async () => {};

describe("tendedPullRequest and other bots' pull requests", () => {
  it("fixes CI on a listed bot's pull request that only bots pushed to", async () => {
    const pull = dependabotPull();
    expect(
      await tendedPullRequest(
        services(pull, ["dependabot[bot]"]),
        request("fix_ci"),
        config,
        noSleep,
      ),
    ).toEqual({ dependencyBot: "dependabot[bot]" });
    expect(
      await tendedPullRequest(
        services(pull, ["dependabot[bot]", BOT]),
        request("fix_ci"),
        config,
        noSleep,
      ),
    ).toEqual({ dependencyBot: "dependabot[bot]" });
    // A person's commit (a known account, or an email GitHub cannot tie to one).
    for (const person of ["octocat", ""]) {
      expect(
        await tendedPullRequest(
          services(pull, ["dependabot[bot]", person]),
          request("fix_ci"),
          config,
          noSleep,
        ),
      ).toBe(false);
    }
  });

  it("leaves forks, closed pull requests, unlisted bots and old heads alone", async () => {
    const cases = [
      dependabotPull({ state: "closed" }),
      dependabotPull({ head: { ref: "x", sha: "abc", repo: { full_name: "fork/r" } } }),
      dependabotPull({ user: { login: "renovate[bot]" } }),
      dependabotPull({ head: { ref: "x", sha: "newer", repo: { full_name: "o/r" } } }),
    ];
    for (const pull of cases) {
      expect(
        await tendedPullRequest(
          services(pull, ["dependabot[bot]"]),
          request("fix_ci"),
          config,
          noSleep,
        ),
      ).toBe(false);
    }
    const off = configSchema.parse({});
    expect(
      await tendedPullRequest(
        services(dependabotPull(), ["dependabot[bot]"]),
        request("fix_ci"),
        off,
        noSleep,
      ),
    ).toBe(false);
  });

  it("keeps a bot's conflicting pull request up to date only once patchwright pushed to it", async () => {
    const pull = dependabotPull();
    expect(
      await tendedPullRequest(
        services(pull, ["dependabot[bot]"]),
        request("update_branch"),
        config,
        noSleep,
      ),
    ).toBe(false);
    expect(
      await tendedPullRequest(
        services(pull, ["dependabot[bot]", BOT]),
        request("update_branch"),
        config,
        noSleep,
      ),
    ).toEqual({ dependencyBot: "dependabot[bot]" });
  });

  it("goes on when GitHub will not list the commits: the workspace checks them again", async () => {
    expect(
      await tendedPullRequest(
        services(dependabotPull(), "refused"),
        request("fix_ci"),
        config,
        noSleep,
      ),
    ).toEqual({ dependencyBot: "dependabot[bot]" });
    expect(
      await tendedPullRequest(
        services(dependabotPull(), "refused"),
        request("update_branch"),
        config,
        noSleep,
      ),
    ).toBe(false);
  });
});
