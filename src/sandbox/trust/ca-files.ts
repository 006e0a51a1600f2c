import { X509Certificate } from "node:crypto";
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";

/**
 * Which certificate files and folders the host's settings name can be shown
 * read-only in a sandbox: only those that hold certificates and nothing
 * else, so a setting pointed at anything else (a .env, a home folder) shows
 * nothing. A bundle that also holds a private key (some tools keep a
 * client's certificate and key in one PEM) is never shown, and the setting
 * that named it is said to be left out.
 */

export interface CaPaths {
  /** Real paths, files and folders, safe to show. */
  shown: string[];
  /** Paths named but not shown, each with why. */
  refused: Array<{ path: string; reason: string }>;
}

/** Folders of hashed certificates (SSL_CERT_DIR, capath) are read up to this many files. */
const MAX_FOLDER_FILES = 2_000;
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
/** Certificates, and the revocation lists OpenSSL's folders may hold beside them. */
const CERTIFICATE = /-----BEGIN (TRUSTED CERTIFICATE|CERTIFICATE|X509 CRL)-----/;
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export async function safeCaPaths(paths: readonly string[]): Promise<CaPaths> {
  const shown = new Set<string>();
  const refused: CaPaths["refused"] = [];
  for (const path of new Set(paths.map((p) => p.trim()).filter(Boolean))) {
    if (!isAbsolute(path)) {
      refused.push({ path, reason: "not an absolute path" });
      continue;
    }
    const real = await realpath(path).catch(() => undefined);
    const info = real ? await stat(real).catch(() => undefined) : undefined;
    if (!real || !info) continue;
    const problem = info.isDirectory() ? await folderProblem(real) : await fileProblem(real);
    if (problem) refused.push({ path, reason: problem });
    else shown.add(real);
  }
  return { shown: [...shown], refused };
}

async function fileProblem(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return "cannot be read";
  if (info.size > MAX_FILE_BYTES) return "is too large to be a certificate bundle";
  const bytes = await readFile(path).catch(() => undefined);
  if (!bytes) return "cannot be read";
  const text = bytes.toString("latin1");
  if (PRIVATE_KEY.test(text)) return "holds a private key, not only certificates";
  if (CERTIFICATE.test(text) || isDerCertificate(bytes)) return undefined;
  return "holds no certificate";
}

function isDerCertificate(bytes: Buffer): boolean {
  try {
    new X509Certificate(bytes);
    return true;
  } catch {
    return false;
  }
}

async function folderProblem(dir: string): Promise<string | undefined> {
  const entries = await readdir(dir).catch(() => undefined);
  if (!entries) return "cannot be read";
  if (entries.length > MAX_FOLDER_FILES) return `holds more than ${MAX_FOLDER_FILES} files`;
  for (const entry of entries) {
    const path = join(dir, entry);
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory())
      return `has a folder in it (${entry}), which a certificate folder does not`;
    if (!info?.isFile()) continue;
    const problem = await fileProblem(path);
    if (problem) return `${entry} in it ${problem}`;
  }
  return undefined;
}
