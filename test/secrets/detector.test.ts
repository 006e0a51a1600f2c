import { describe, expect, it } from "vitest";
import { createSecretDetector, DETECTOR_RULES } from "../../src/secrets/detector.js";
import { secretCorpus } from "../helpers/secret-corpus.js";
import {
  allFamilies,
  leaks,
  secretFamilies,
  withHiddenCharacters,
} from "../helpers/secret-families.js";

const detector = createSecretDetector();
const families = secretFamilies();

describe("the secret detector", () => {
  it.each(families.map((f) => [f.family, f] as const))("redacts %s", (_name, family) => {
    const out = detector.redact(family.text);
    expect(leaks([family], out)).toEqual([]);
    expect(out).toMatch(/\[redacted: [a-z0-9-]+\]/);
  });

  it("runs secretlint's recommended rules (less the comment switch and the file-name rule) and ours", () => {
    const ids = DETECTOR_RULES.map((rule) => rule.id);
    for (const id of ["aws", "github", "npm", "slack", "privatekey", "basicauth", "openai"]) {
      expect(ids).toContain(id);
    }
    // `// secretlint-disable` in a CI log must not switch detection off.
    expect(ids).not.toContain("filter-comments");
    const disabled = `// secretlint-disable\n${families[0]?.text}`;
    expect(leaks(families, detector.redact(disabled))).toEqual([]);
  });

  it("finds secrets with no prefix of their own by what surrounds them", () => {
    const aws = "a".repeat(20) + "B/c+".repeat(5);
    const cases = [
      `AWS_SECRET_ACCESS_KEY=${aws}`,
      `aws configure set aws_secret_access_key ${aws}`,
      `"SecretAccessKey": "${aws}"`,
      "//registry.example.com/:_authToken=0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
      "amqp://queue:Rabb1tPass@mq.internal:5672/",
      "https://api.example.com/v1?token=Zm9vYmFyYmF6cXV4&page=2",
      "Authorization: Bearer abcDEF123456ghiJKL",
      "DB_PASSWORD=hunter2-and-more",
      "client_secret: 'c9f1b2e3d4a5b6c7'",
      "machine api.example.com login bot password s3cr3t-pw",
      "password: CorrectHorseBatteryStaple",
    ];
    for (const text of cases) {
      const out = detector.redact(text);
      expect(out, text).toMatch(/\[redacted: /);
    }
    expect(detector.redact(`AWS_SECRET_ACCESS_KEY=${aws}`)).toBe(
      "AWS_SECRET_ACCESS_KEY=[redacted: aws-secret-access-key]",
    );
  });

  it("leaves references, placeholders and code alone", () => {
    const cases = [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference, as written in .npmrc
      "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression
      "password: ${{ secrets.DB_PASSWORD }}",
      "const token = process.env.GITHUB_TOKEN;",
      "api_key: config.apiKey",
      "password: changeme",
      "https://user:password@example.com/",
      "max_tokens: 16384",
      "GITHUB_TOKEN: ***",
      "tokenizer = load('bert-base')",
      "  credential: StorageSharedKeyCredential | AnonymousCredential,",
      "let userDelegationKeyCredential: UserDelegationKeyCredential | undefined;",
      "token: OAuth2TokenCredential, secret: ClientSecret",
    ];
    for (const text of cases) expect(detector.redact(text), text).toBe(text);
  });

  it("sees through hidden characters, and redacts them with the token they split", () => {
    const text = withHiddenCharacters(allFamilies(families));
    const out = detector.redact(text);
    expect(leaks(families, out)).toEqual([]);
    expect(out).not.toMatch(/ghp_[A-Za-z0-9]{6,}/);
  });

  it("leaves its own placeholders alone when text is redacted twice", () => {
    const once = detector.redact(allFamilies(families));
    expect(detector.redact(once)).toBe(once);
  });

  it("puts the values this process holds on top, also base64-encoded", () => {
    const own = createSecretDetector([{ name: "the installation token", value: "own-value-0123" }]);
    const header = Buffer.from("x-access-token:own-value-0123").toString("base64");
    expect(own.find(`a own-value-0123 b Basic ${header}`).map((m) => m.rule)).toEqual([
      "the installation token",
      "the installation token",
    ]);
  });

  it("finds nothing in lockfiles, minified code, base64 fixtures, git ids or UUIDs", () => {
    const found = secretCorpus("small").flatMap((file) =>
      detector
        .find(file.text)
        .map((m) => `${file.name}: ${m.rule}: ${file.text.slice(m.start, m.end)}`),
    );
    expect(found).toEqual([]);
  });
});
