import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createSecretDetector,
  DETECTOR_RULES,
  KEYWORD_TEXT_LIMIT,
} from "../../src/secrets/detector.js";
import { mayFind } from "../../src/secrets/rule.js";
import { KEYWORDS_READ_FROM } from "../../src/secrets/secretlint-rules.js";
import { secretFamilies } from "../helpers/secret-families.js";

/**
 * A rule's keywords (src/secrets/rule.ts) let the detector skip it for a
 * text that holds none of them, so a keyword list that misses a form the
 * rule finds would let that secret through. Each rule is run here without
 * its keywords on examples of what it finds (and on the same text in other
 * cases), and wherever it finds something its keywords must let it run.
 */

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** Seeded, so that no run's random text happens to hold another keyword. */
function generator(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state;
  };
  return (alphabet: string, n: number) =>
    Array.from({ length: n }, () => alphabet[next() % alphabet.length]).join("");
}

/** A query's names for a secret, one for each keyword of secret-in-query. */
const QUERY_NAMES = [
  "pass",
  "passwd",
  "password",
  "pwd",
  "access_token",
  "api_key",
  "apikey",
  "api-key",
  "client_secret",
  "signature",
];

/** Texts that rules find something in, one or more for each keyword of each rule. */
function examples(): string[] {
  const pick = generator(7);
  const alnum = (n: number) => pick(ALNUM, n);
  // A JSON object in base64, its length making the closing brace end in `fQ==`.
  let ops = "";
  for (let pad = ""; !ops.endsWith("fQ=="); pad += "x") {
    const json = JSON.stringify({ signInAddress: "my.1password.com", userAuth: alnum(60), pad });
    ops = Buffer.from(json).toString("base64");
  }
  const awsIds = ["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA"];
  return [
    ...["ghp", "gho", "ghu", "ghs", "ghr"].map((p) => `token ${p}_${alnum(36)}`),
    `GH_TOKEN=github_pat_${alnum(22)}_${alnum(59)}`,
    ...[...awsIds, "A3TX"].map((p) => `id ${p}${pick(UPPER, 16)}`),
    `AWS_SECRET_ACCESS_KEY=${alnum(40)}`,
    ...["secretkey", "secret-key", "Secret_Key", "secretaccesskey", "secret-access-key"].map(
      (name) => `aws ${name} = ${alnum(40)}`,
    ),
    ...["sk_live_", "sk_test_", "rk_live_", "rk_test_"].map((p) => `stripe ${p}${alnum(24)}`),
    `STRIPE_WEBHOOK=whsec_${alnum(32)}`,
    ...["AccountKey", "SharedAccessKey", "PrimaryKey", "SecondaryKey"].map(
      (name) => `${name}=${alnum(40)}==`,
    ),
    `https://store.blob.core.windows.net/c?sv=2022-11-02&sig=${alnum(40)}%3D`,
    `AZURE_CLIENT_SECRET=abc8Q~${alnum(32)}`,
    `GOOGLE_API_KEY=AIza${alnum(35)}`,
    `client_secret: GOCSPX-${alnum(28)}`,
    `"private_key_id": "${"ab12".repeat(10)}"`,
    ...["xoxb", "xoxp", "xoxa", "xoxo", "xoxr"].map((p) => `slack ${p}-1234567890-${alnum(24)}`),
    `SLACK_APP=xapp-1-${alnum(20)}`,
    `posting to https://hooks.slack.com/services/T${pick(UPPER, 8)}/B${pick(UPPER, 10)}/${alnum(24)}`,
    `GITLAB=glpat-${alnum(20)}`,
    `HF=hf_${pick("abcdefghijklmnopqrstuvwxyz", 34)}`,
    `DOCKER=dckr_pat_${alnum(27)}`,
    `DO=dop_v1_${pick("0123456789abcdef", 64)}`,
    `NPM_TOKEN=npm_${alnum(36)}`,
    `JWT: eyJ${alnum(20)}.eyJ${alnum(30)}.${alnum(30)}`,
    "//registry.npmjs.org/:_auth=dXNlcjpwYXNzd29yZDEyMw==",
    `//registry.npmjs.org/:_password=${alnum(20)}=`,
    `const npmrc = "//npm.example.com/:_authToken=${alnum(30)}";`,
    `curl https://bob:Tr0ub4dor${alnum(6)}@api.example.com/v1`,
    ...QUERY_NAMES.map((name) => `https://api.example.com/v1?${name}=Zx9${alnum(17)}&page=2`),
    `proxy-authorization: Basic ${alnum(24)}`,
    `machine api.example.com login bot password s3cr3t-${alnum(6)}`,
    `DB_PASSWORD=hunter2-${alnum(8)}`,
    `client_secret = "Zx9${alnum(20)}"`,
    `REFRESH_TOKEN=Zx9${alnum(20)}`,
    `signing_key: "Zx9${alnum(20)}"`,
    `CREDENTIAL=a1b2${alnum(12)}`,
    `export ANTHROPIC_API_KEY=sk-ant-api03-${pick(`${ALNUM}_-`, 93)}AA`,
    `OPENAI_API_KEY=sk-${alnum(48)}`,
    `SENDGRID_API_KEY=SG.${alnum(22)}.${alnum(43)}`,
    ...["shppa", "shpca", "shpat", "shpss"].map((p) => `shopify ${p}_${alnum(32)}`),
    `LINEAR_API_KEY=lin_api_${alnum(40)}`,
    `OP_SERVICE_ACCOUNT_TOKEN=ops_${ops}`,
    `MONGO_URL=mongodb+srv://admin:Xy7${alnum(10)}@cluster0.example.net/app`,
    `jdbc:mysql://root:Qw3${alnum(10)}@db.internal:3306/shop`,
    `POSTGRES=postgresql://svc:Pg9${alnum(10)}@pg.internal/main`,
  ];
}

/** The same text in other cases: a case-insensitive rule finds these too. */
function variants(text: string): string[] {
  const swapped = [...text]
    .map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
    .join("");
  return [text, text.toUpperCase(), text.toLowerCase(), swapped];
}

describe("the secret rules' keywords", () => {
  const pool = [...secretFamilies().map((f) => f.text), ...examples()].flatMap(variants);

  it.each(DETECTOR_RULES.filter((rule) => rule.keywords).map((rule) => [rule.id, rule] as const))(
    "let %s run on every text it finds something in",
    (_id, rule) => {
      const found = pool.filter((text) => rule.find(text).length > 0);
      // An example it finds: the check below is not run on nothing.
      expect(found.length).toBeGreaterThan(0);
      const skipped = found.filter((text) => !mayFind(rule, text.toLowerCase()));
      expect(skipped).toEqual([]);
    },
  );

  it.each(DETECTOR_RULES.filter((rule) => rule.keywords).map((rule) => [rule.id, rule] as const))(
    "of %s each have an example that only it lets the rule run on",
    (_id, rule) => {
      const found = pool.filter((text) => rule.find(text).length > 0).map((t) => t.toLowerCase());
      const unneeded = (rule.keywords ?? []).filter((word) => {
        const without = { ...rule, keywords: (rule.keywords ?? []).filter((w) => w !== word) };
        return found.every((lower) => mayFind(without, lower));
      });
      expect(unneeded).toEqual([]);
    },
  );

  it("are lowercase, as the lowercased text they are looked for in", () => {
    for (const rule of DETECTOR_RULES) {
      for (const word of rule.keywords ?? []) expect(word, rule.id).toBe(word.toLowerCase());
    }
  });

  it("were read from the secretlint release that is installed and pinned", () => {
    const require = createRequire(import.meta.url);
    const entry = require.resolve("@secretlint/secretlint-rule-preset-recommend");
    const installed = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8"));
    const root = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8"));
    // A new release may change a rule's patterns: read them again, then move this.
    expect(installed.version).toBe(KEYWORDS_READ_FROM);
    expect(root.dependencies["@secretlint/secretlint-rule-preset-recommend"]).toBe(
      KEYWORDS_READ_FROM,
    );
  });
});

describe("the detector", () => {
  afterEach(() => vi.restoreAllMocks());
  const alnum = (n: number) => generator(11)(ALNUM, n);

  it("runs a rule with keywords only on a text that holds one", () => {
    const finds = DETECTOR_RULES.map((rule) => vi.spyOn(rule, "find"));
    const detector = createSecretDetector();
    expect(detector.redact("Please tidy up the README.")).toBe("Please tidy up the README.");
    const ran = DETECTOR_RULES.filter((_, i) => (finds[i]?.mock.calls.length ?? 0) > 0);
    expect(ran.every((rule) => rule.keywords === undefined)).toBe(true);
    expect(ran.length).toBeGreaterThan(0);

    const github = `ghp_${alnum(36)}`;
    expect(detector.redact(`push with ${github}`)).not.toContain(github);
    const githubRules = DETECTOR_RULES.filter((rule) => rule.keywords?.includes("ghp_"));
    expect(githubRules.map((rule) => rule.id).sort()).toEqual(["github", "github-token"]);
    for (const rule of githubRules) {
      expect(finds[DETECTOR_RULES.indexOf(rule)]?.mock.calls.length).toBeGreaterThan(0);
    }
  });

  it("runs every rule on a text longer than the keywords pay for", () => {
    const finds = DETECTOR_RULES.map((rule) => vi.spyOn(rule, "find"));
    const long = "Please tidy up the README. ".repeat(KEYWORD_TEXT_LIMIT / 20);
    expect(long.length).toBeGreaterThan(KEYWORD_TEXT_LIMIT);
    expect(createSecretDetector().redact(long)).toBe(long);
    expect(finds.every((find) => find.mock.calls.length === 1)).toBe(true);
  });

  it("looks for keywords in the text it scans: one split by hidden characters still runs its rule", () => {
    const token = alnum(36);
    const split = `gh\u200Bp_${token}`;
    expect(createSecretDetector().redact(`token ${split}`)).not.toContain(token);
  });
});
