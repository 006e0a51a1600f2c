import { gunzipSync } from "node:zlib";

/**
 * Reading files out of a registry tarball (gzip'd ustar, as `npm pack`
 * writes it), without unpacking anything to disk: as text, only regular
 * files whose path passes `want`, each cut at `maxFileBytes`, or one file's
 * bytes whole; `package/` (the folder every npm tarball uses) is dropped
 * from the names.
 */

export function readTarball(
  gzipped: Buffer,
  want: (path: string) => boolean,
  maxFileBytes = 200_000,
): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, body] of tarEntries(gzipped, want))
    files.set(name, body.subarray(0, maxFileBytes).toString("utf8"));
  return files;
}

/** One file's exact bytes (`bin/yarn.js`), or undefined when the tarball has none. */
export function tarballFile(gzipped: Buffer, path: string): Buffer | undefined {
  for (const [, body] of tarEntries(gzipped, (name) => name === path)) return body;
  return undefined;
}

/** The regular files whose path (without `package/`) passes `want`, with their bytes. */
function* tarEntries(
  gzipped: Buffer,
  want: (path: string) => boolean,
): Generator<[string, Buffer]> {
  const tar = gunzipSync(gzipped, { maxOutputLength: 64 * 1024 * 1024 });
  let offset = 0;
  let longName: string | undefined;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString("utf8")
        .replace(/\0.*$/s, "");
    const size = Number.parseInt(field(124, 12).trim() || "0", 8);
    const type = field(156, 1);
    const prefix = field(345, 155);
    const body = tar.subarray(offset + 512, offset + 512 + size);
    let name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    longName = undefined;
    if (type === "x") {
      // A pax header: its `path=` record names the next entry.
      const path = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"))?.[1];
      if (path) longName = path;
    } else if (type === "L") {
      longName = body.toString("utf8").replace(/\0.*$/s, "");
    } else if (type === "0" || type === "") {
      name = name.replace(/^[^/]+\//, "");
      if (want(name)) yield [name, body];
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
}
