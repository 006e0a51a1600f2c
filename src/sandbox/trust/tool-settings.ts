import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse } from "ini";
import { hasCredentials, parseProxyUrl } from "./proxy-settings.js";

/**
 * Trust and proxy settings other tools keep in the user's own config files,
 * which a sandbox never shows (its HOME is private): git's global config
 * (`http.sslCAInfo`, `http.sslCAPath`, `http.proxy`) and pip's
 * (`cert`, `proxy`, `index-url`, `trusted-host`). They reach the sandbox as
 * the environment variables those tools read, never a value that carries a
 * user or password.
 */

export interface ToolSettings {
  env: Record<string, string>;
  caFiles: string[];
  notes: string[];
}

const run = promisify(execFile);

export async function readToolSettings(options: {
  env: Record<string, string | undefined>;
  home: string | undefined;
}): Promise<ToolSettings> {
  const [git, pip] = await Promise.all([gitSettings(options), pipSettings(options)]);
  return {
    env: { ...git.env, ...pip.env },
    caFiles: [...git.caFiles, ...pip.caFiles],
    notes: [...git.notes, ...pip.notes],
  };
}

/** The user's git config files, as `git config --global` reads them. */
function gitConfigFiles(env: Record<string, string | undefined>, home: string | undefined) {
  if (env.GIT_CONFIG_GLOBAL) return [env.GIT_CONFIG_GLOBAL];
  const xdg = env.XDG_CONFIG_HOME || (home ? join(home, ".config") : undefined);
  return [xdg ? join(xdg, "git", "config") : "", home ? join(home, ".gitconfig") : ""].filter(
    Boolean,
  );
}

async function gitSettings(options: {
  env: Record<string, string | undefined>;
  home: string | undefined;
}): Promise<ToolSettings> {
  const found: Record<string, string> = {};
  for (const file of gitConfigFiles(options.env, options.home)) {
    // git itself reads the file: includes (which `--file` skips unless
    // asked) and quoting are its business. A file that names neither
    // "http" nor "include" holds no http.* setting, and a missing one none
    // at all: no git process for those (tens of milliseconds each).
    const text = await readFile(file, "utf8").catch(() => "");
    if (!/http|include/i.test(text)) continue;
    const listed = await run(
      "git",
      ["config", "--includes", "--file", file, "--get-regexp", "^http\\."],
      {
        env: { PATH: options.env.PATH ?? "/usr/bin:/bin" },
      },
    ).then(
      ({ stdout }) => stdout,
      () => "",
    );
    for (const line of listed.split("\n")) {
      const [key = "", ...rest] = line.split(" ");
      if (key) found[key.toLowerCase()] = rest.join(" ");
    }
  }
  const env: Record<string, string> = {};
  const caFiles: string[] = [];
  const notes: string[] = [];
  const caInfo = found["http.sslcainfo"];
  const caPath = found["http.sslcapath"];
  if (caInfo && !options.env.GIT_SSL_CAINFO) {
    env.GIT_SSL_CAINFO = caInfo;
    caFiles.push(caInfo);
  }
  if (caPath && !options.env.GIT_SSL_CAPATH) {
    env.GIT_SSL_CAPATH = caPath;
    caFiles.push(caPath);
  }
  const proxy = found["http.proxy"];
  if (proxy) {
    const url = parseProxyUrl(proxy);
    if (url && hasCredentials(url)) {
      notes.push("git's http.proxy carries a user or password, so sandboxes do not get it");
    } else {
      // For git alone, as the host's config has it: through git's own config variables.
      Object.assign(env, {
        GIT_CONFIG_COUNT: "1",
        GIT_CONFIG_KEY_0: "http.proxy",
        GIT_CONFIG_VALUE_0: proxy,
      });
    }
  }
  return { env, caFiles, notes };
}

async function pipSettings(options: {
  env: Record<string, string | undefined>;
  home: string | undefined;
}): Promise<ToolSettings> {
  const { env, home } = options;
  const xdg = env.XDG_CONFIG_HOME || (home ? join(home, ".config") : undefined);
  const files = [
    env.PIP_CONFIG_FILE ?? "",
    xdg ? join(xdg, "pip", "pip.conf") : "",
    home ? join(home, ".pip", "pip.conf") : "",
  ].filter(Boolean);
  const settings: Record<string, string> = {};
  for (const file of files.reverse()) {
    const text = await readFile(file, "utf8").catch(() => undefined);
    const global = text ? (parse(text) as Record<string, unknown>).global : undefined;
    if (typeof global !== "object" || global === null) continue;
    for (const [key, value] of Object.entries(global)) {
      if (typeof value === "string") settings[key] = value;
    }
  }
  const out: ToolSettings = { env: {}, caFiles: [], notes: [] };
  const names: Record<string, string> = {
    cert: "PIP_CERT",
    proxy: "PIP_PROXY",
    "index-url": "PIP_INDEX_URL",
    "extra-index-url": "PIP_EXTRA_INDEX_URL",
    "trusted-host": "PIP_TRUSTED_HOST",
  };
  for (const [key, name] of Object.entries(names)) {
    const value = settings[key];
    if (!value || env[name]) continue;
    const url = key === "cert" || key === "trusted-host" ? undefined : parseProxyUrl(value);
    if (url && hasCredentials(url)) {
      out.notes.push(`pip's ${key} carries a user or password, so sandboxes do not get it`);
      continue;
    }
    out.env[name] = value;
    if (key === "cert") out.caFiles.push(value);
  }
  return out;
}
