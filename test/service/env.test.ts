import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseServiceEnv, ServiceEnvError } from "../../src/service/env.js";
import { makeTempDir, type TempDir } from "../helpers/git-repos.js";

let tmp: TempDir | undefined;
afterEach(() => {
  tmp?.remove();
  tmp = undefined;
});

describe("the service environment", () => {
  it("has defaults for everything a fresh `npm start` needs", () => {
    const settings = parseServiceEnv({ HOME: "/home/bot" });
    expect(settings).toMatchObject({
      cacheDir: "/home/bot/.cache/patchwright",
      concurrency: 2,
      inProcessWorker: true,
      shutdownGraceMs: 60_000,
      maxAttempts: 3,
      jobLockMs: 30_000,
      redisUrl: undefined,
      unsandboxed: false,
    });
  });

  it("names every bad value at once", () => {
    const bad = () =>
      parseServiceEnv({
        PATCHWRIGHT_CONCURRENCY: "two",
        PATCHWRIGHT_WORKER: "maybe",
        PATCHWRIGHT_SHUTDOWN_GRACE_SECONDS: "-5",
      });
    expect(bad).toThrow(ServiceEnvError);
    expect(bad).toThrow(
      /PATCHWRIGHT_CONCURRENCY.*"two".*PATCHWRIGHT_WORKER.*"maybe".*GRACE_SECONDS.*"-5"/,
    );
  });

  it("reads the App's key from PRIVATE_KEY (one line, \\n escaped) or PRIVATE_KEY_PATH", () => {
    expect(
      parseServiceEnv({ PRIVATE_KEY: "-----BEGIN-----\\nabc\\n-----END-----" }).privateKey,
    ).toBe("-----BEGIN-----\nabc\n-----END-----");
    tmp = makeTempDir("pw-env-");
    const path = join(tmp.path, "key.pem");
    writeFileSync(path, "-----BEGIN-----\nfile\n-----END-----\n");
    expect(parseServiceEnv({ PRIVATE_KEY_PATH: path }).privateKey).toContain("file");
    expect(() =>
      parseServiceEnv({ PRIVATE_KEY_PATH: join(tmp?.path ?? "", "missing.pem") }),
    ).toThrow(/PRIVATE_KEY_PATH: cannot read/);
  });

  it("points the API at GitHub Enterprise Server when GHE_HOST is set", () => {
    expect(parseServiceEnv({ GHE_HOST: "ghe.example.com" }).apiBaseUrl).toBe(
      "https://ghe.example.com/api/v3",
    );
    expect(parseServiceEnv({ GHE_HOST: "127.0.0.1:9", GHE_PROTOCOL: "http" }).apiBaseUrl).toBe(
      "http://127.0.0.1:9/api/v3",
    );
  });
});
