import { describe, expect, it } from "vitest";
import { objectMembers, valueEnd } from "../../../src/deps/registry/json-members.js";
import { parsePackument } from "../../../src/deps/registry/packument.js";

/** Each member of the object at the start of `text`: key and value text, or -1 when refused. */
function members(text: string): [string, string][] | -1 {
  const bytes = Buffer.from(text);
  const seen: [string, string][] = [];
  const end = objectMembers(bytes, 0, (key, start) => {
    const stop = valueEnd(bytes, start);
    if (stop >= 0) seen.push([key, bytes.toString("utf8", start, stop)]);
    return stop;
  });
  return end < 0 ? -1 : seen;
}

describe("objectMembers", () => {
  it("bounds each value, whatever its strings hold", () => {
    const text = String.raw`{ "a" : "x\"}{[" , "b\\":{"c":[1,{"d":"\\"},"]}"]},
      "\u0076ersion":-1.5e+3,"t":true,"n":null,"e":{},"l":[] ,"u":"ü😀\\\\"}`;
    expect(members(text)).toEqual([
      ["a", String.raw`"x\"}{["`],
      ["b\\", String.raw`{"c":[1,{"d":"\\"},"]}"]}`],
      ["version", "-1.5e+3"],
      ["t", "true"],
      ["n", "null"],
      ["e", "{}"],
      ["l", "[]"],
      ["u", String.raw`"ü😀\\\\"`],
    ]);
    // Every value's text is the JSON that JSON.parse reads there.
    const parsed = JSON.parse(text) as Record<string, unknown>;
    for (const [key, value] of members(text) as [string, string][])
      expect(JSON.parse(value)).toEqual(parsed[key]);
    expect(members("{}")).toEqual([]);
  });

  it("refuses what is cut short or not an object", () => {
    const text = String.raw`{"a":"x\"y","b":{"c":[1,2]},"d":true}`;
    for (let cut = 1; cut < text.length; cut++) expect(members(text.slice(0, cut))).toBe(-1);
    for (const bad of ['{"a":1,}', '{"a" 1}', "{a:1}", '{"a":1 "b":2}', "[1]", '"x"', ""])
      expect(members(bad)).toBe(-1);
  });
});

/** A small seeded generator (mulberry32), so a failure names its seed and repeats. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NASTY = [
  '"',
  "\\",
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  "\\u0041",
  "\n",
  "ü",
  "😀",
  "a",
  " ",
  "\\\\",
];

function nastyString(next: () => number): string {
  let out = "";
  for (let i = Math.floor(next() * 6); i > 0; i--) out += NASTY[Math.floor(next() * NASTY.length)];
  return out;
}

function junk(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth > 2 || pick < 0.3) return nastyString(next);
  if (pick < 0.4) return Math.floor(next() * 1e6) / 100;
  if (pick < 0.5) return [true, false, null][Math.floor(next() * 3)];
  if (pick < 0.7) return [junk(next, depth + 1), junk(next, depth + 1)];
  return { [nastyString(next)]: junk(next, depth + 1), k: junk(next, depth + 1) };
}

/** A packument with junk in every member the plan skips, and nasty strings in those it keeps. */
function document(next: () => number): Record<string, unknown> {
  const versions: Record<string, unknown> = {};
  const time: Record<string, string> = { created: nastyString(next) };
  for (let i = 0; i < 5; i++) {
    const version = `1.${i}.0`;
    time[version] = `2026-01-0${i + 1}T00:00:00.000Z${nastyString(next)}`;
    versions[version] = {
      description: junk(next, 0),
      version,
      dependencies: { [nastyString(next)]: nastyString(next), x: junk(next, 0) },
      ...(next() < 0.5 ? { deprecated: nastyString(next) } : {}),
      engines: { node: nastyString(next), npm: junk(next, 0) },
      peerDependencies: { p: nastyString(next) },
      dist: { tarball: nastyString(next), integrity: "sha512-x", signatures: junk(next, 0) },
      scripts: { postinstall: nastyString(next), test: junk(next, 0) },
      _npmUser: { name: nastyString(next) },
      [nastyString(next)]: junk(next, 0),
    };
  }
  return {
    _id: nastyString(next),
    readme: junk(next, 0),
    name: `pkg${nastyString(next)}`,
    "dist-tags": { latest: "1.4.0", [nastyString(next)]: nastyString(next) },
    versions,
    users: junk(next, 0),
    time,
    repository: { url: nastyString(next), type: junk(next, 0) },
  };
}

/** The same document with only the members the plan reads: nothing to skip. */
function keptOnly(doc: Record<string, unknown>): Record<string, unknown> {
  const keep = [
    "version",
    "deprecated",
    "scripts",
    "engines",
    "peerDependencies",
    "dist",
    "_npmUser",
  ];
  const versions = Object.fromEntries(
    Object.entries(doc.versions as Record<string, Record<string, unknown>>).map(([key, v]) => [
      key,
      Object.fromEntries(Object.entries(v).filter(([field]) => keep.includes(field))),
    ]),
  );
  return {
    name: doc.name,
    "dist-tags": doc["dist-tags"],
    versions,
    time: doc.time,
    repository: doc.repository,
  };
}

describe("packuments read member by member", () => {
  it("reads what JSON.parse reads, over documents of escapes, braces and quotes", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const doc = document(random(seed));
      const text = JSON.stringify(doc, null, seed % 3 === 0 ? 2 : undefined);
      const read = parsePackument(Buffer.from(text), false);
      expect(read, `seed ${seed}`).toBeDefined();
      expect(read, `seed ${seed}`).toEqual(
        parsePackument(Buffer.from(JSON.stringify(keptOnly(doc))), false),
      );
      expect(read?.name, `seed ${seed}`).toBe(doc.name);
      expect(read?.time, `seed ${seed}`).toEqual(doc.time);
      const first = (doc.versions as Record<string, Record<string, unknown>>)["1.0.0"];
      expect(read?.versions["1.0.0"]?.peerDependencies, `seed ${seed}`).toEqual(
        first?.peerDependencies,
      );
      expect(read?.versions["1.0.0"]?.deprecated, `seed ${seed}`).toEqual(first?.deprecated);
    }
  });

  it("refuses a document cut short, followed by more, or with a version that is no object", () => {
    const text = JSON.stringify(document(random(7)));
    for (const cut of [1, 10, text.length / 3, text.length / 2, text.length - 1])
      expect(parsePackument(Buffer.from(text.slice(0, Math.floor(cut))), false)).toBeUndefined();
    expect(parsePackument(Buffer.from(`${text} {}`), false)).toBeUndefined();
    expect(parsePackument(Buffer.from(`\n ${text}\n`), false)).toBeDefined();
    const doc = document(random(8));
    (doc.versions as Record<string, unknown>)["9.0.0"] = "9.0.0";
    expect(parsePackument(Buffer.from(JSON.stringify(doc)), false)).toBeUndefined();
    expect(parsePackument(Buffer.from(JSON.stringify({ ...doc, versions: null })), false)).toBe(
      undefined,
    );
    // A version named __proto__ stays a version, as JSON.parse keeps it.
    const proto = `{"name":"p","versions":{"__proto__":{"version":"1.0.0"}}}`;
    expect(Object.keys(parsePackument(Buffer.from(proto), false)?.versions ?? {})).toEqual([
      "__proto__",
    ]);
  });
});
