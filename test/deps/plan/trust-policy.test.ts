import { describe, expect, it } from "vitest";
import { pnpmTrustPolicy, trustDowngrade } from "../../../src/deps/plan/trust-policy.js";
import type { Packument, TrustEvidence } from "../../../src/deps/registry/registry.js";

const NOW = Date.parse("2026-12-01T00:00:00Z");
const DAY = 86_400_000;

/** A packument from [version, days ago, evidence] rows. */
function packument(rows: Array<[string, number, TrustEvidence?]>): Packument {
  return {
    name: "fx",
    "dist-tags": { latest: rows.at(-1)?.[0] ?? "" },
    versions: Object.fromEntries(
      rows.map(([version, , trust]) => [version, { version, ...(trust ? { trust } : {}) }]),
    ),
    time: Object.fromEntries(
      rows.map(([version, daysAgo]) => [version, new Date(NOW - daysAgo * DAY).toISOString()]),
    ),
  };
}

const policy = (settings: Record<string, unknown> = {}) => {
  const read = pnpmTrustPolicy({ trustPolicy: "no-downgrade", ...settings });
  if (!read) throw new Error("no policy read");
  return read;
};

/** The versions pnpm refuses, each with its reason's first words. */
function refused(doc: Packument, settings: Record<string, unknown> = {}): string[] {
  return Object.keys(doc.versions).flatMap((version) => {
    const why = trustDowngrade(doc, version, policy(settings), NOW);
    return why ? [`${version}: ${why.slice(0, why.indexOf(" (a possible"))}`] : [];
  });
}

describe("pnpm's trustPolicy: no-downgrade", () => {
  it("is read only when set to no-downgrade, with its exclusions and ignore-after minutes", () => {
    expect(pnpmTrustPolicy({})).toBeUndefined();
    expect(pnpmTrustPolicy({ trustPolicy: "off" })).toBeUndefined();
    expect(
      pnpmTrustPolicy({
        trustPolicy: "no-downgrade",
        trustPolicyExclude: ["semver@6.3.1", 7],
        trustPolicyIgnoreAfter: 43200,
      }),
    ).toEqual({
      source: "trustPolicy: no-downgrade in pnpm-workspace.yaml",
      exclude: ["semver@6.3.1"],
      ignoreAfterMs: 43200 * 60_000,
    });
  });

  it("refuses weaker evidence than any release published before, by publish time, not by version", () => {
    const doc = packument([
      ["1.0.0", 400],
      ["1.1.0", 300, "provenance"],
      ["2.0.0", 200, "trustedPublisher"],
      ["2.0.1", 100, "provenance"],
      // A backport published after 2.0.0 answers to 2.0.0's trusted publisher.
      ["1.1.1", 50],
      ["2.1.0", 10, "trustedPublisher"],
    ]);
    expect(refused(doc)).toEqual([
      "2.0.1: published with a provenance attestation where an earlier release had a trusted publisher",
      "1.1.1: published with no trust evidence where an earlier release had a trusted publisher",
    ]);
  });

  it("weighs a prerelease's history only for a prerelease", () => {
    const doc = packument([
      ["1.0.0", 300],
      ["2.0.0-rc.1", 200, "trustedPublisher"],
      ["1.0.1", 100],
      ["2.0.0-rc.2", 50],
    ]);
    expect(refused(doc)).toEqual([
      "2.0.0-rc.2: published with no trust evidence where an earlier release had a trusted publisher",
    ]);
  });

  it("lets through what trustPolicyExclude names and what is older than trustPolicyIgnoreAfter", () => {
    const doc = packument([
      ["1.0.0", 300, "trustedPublisher"],
      ["1.0.1", 40],
      ["1.0.2", 5],
    ]);
    expect(refused(doc).map((r) => r.split(":")[0])).toEqual(["1.0.1", "1.0.2"]);
    expect(refused(doc, { trustPolicyExclude: ["fx@1.0.2"] }).map((r) => r.split(":")[0])).toEqual([
      "1.0.1",
    ]);
    expect(refused(doc, { trustPolicyExclude: ["f*"] })).toEqual([]);
    // Thirty days: 1.0.1 (40 days old) is past the check.
    expect(refused(doc, { trustPolicyIgnoreAfter: 30 * 1440 }).map((r) => r.split(":")[0])).toEqual(
      ["1.0.2"],
    );
  });
});
