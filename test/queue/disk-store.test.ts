import { readdirSync, readFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { DiskJobStore } from "../../src/queue/disk-store.js";
import type { StoredJobRecord } from "../../src/queue/types.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/** The embedded store's journal: group commits, checkpoints, and what a restart finds. */

const record = (n: number, state: StoredJobRecord["state"] = "queued"): StoredJobRecord => ({
  id: `job-${n}`,
  kind: "request",
  key: `o/r#${n}`,
  deliveryId: `delivery-${n}`,
  inputs: [{ padding: "x".repeat(200) }],
  state,
  attempts: 0,
  createdAt: 1_000 + n,
  updatedAt: 1_000 + n + (state === "queued" ? 0 : 1),
});

const journals = (dir: string) => readdirSync(dir).filter((name) => name.startsWith("journal-"));

describe("DiskJobStore", () => {
  it("checkpoints a journal that grew past its size: the files are written and it is removed", async () => {
    const dir = await makeTempDir();
    const store = new DiskJobStore(dir, { journalBytes: 2_000 });
    await store.load();
    for (let n = 0; n < 30; n++) await store.write(record(n));
    // Every few writes the journal rotates; each old one goes once its records' files are synced.
    await vi.waitFor(() => expect(journals(dir).length).toBeLessThanOrEqual(1));
    await vi.waitFor(() => expect(readdirSync(join(dir, "records"))).toHaveLength(30));
    await store.close();
    expect(journals(dir)).toEqual([]);
    expect(readdirSync(join(dir, "records"))).toHaveLength(30);
  });

  it("keeps the newest state of each record, from the journal when the file is older", async () => {
    const dir = await makeTempDir();
    const first = new DiskJobStore(dir);
    await first.load();
    await first.write(record(1));
    await first.write(record(1, "running"));
    // As after kill -9 before the files were written: a second store reads what is on disk.
    const second = new DiskJobStore(dir);
    const loaded = await second.load();
    expect(loaded).toEqual([record(1, "running")]);
    const file = JSON.parse(readFileSync(join(dir, "records", "job-1.json"), "utf8"));
    expect(file.state).toBe("running");
    expect(await second.claim(["delivery-1"], "job-2", (id) => id === "job-1")).toBe(false);
    expect(await second.claim(["delivery-9"], "job-2", () => true)).toBe(true);
    // The "killed" store's journal handle too: Node closing it at GC warns (DEP0137).
    await Promise.all([first.close(), second.close()]);
  });

  it("stores nothing of a write whose sync failed, and keeps the state before it", async () => {
    const dir = await makeTempDir();
    const store = new DiskJobStore(dir);
    await store.load();
    await store.write(record(1));
    const handle = await open(join(dir, "probe"), "w");
    const datasync = vi
      .spyOn(Object.getPrototypeOf(handle), "datasync")
      .mockRejectedValueOnce(new Error("EIO: the disk failed"));
    await handle.close();
    await expect(store.write(record(1, "running"))).rejects.toThrow("EIO");
    datasync.mockRestore();
    await expect(store.write(record(2))).resolves.toBeUndefined();
    await store.close();
    const loaded = await new DiskJobStore(dir).load();
    expect(loaded.sort((a, b) => a.id.localeCompare(b.id))).toEqual([record(1), record(2)]);
  });
});
