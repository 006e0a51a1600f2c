/**
 * The helper's whole program (CommonJS, given with -e: no file to ship or
 * find, the same under the bundle, the build and tsx). It does what
 * direct.ts does, its own group per program, more cheaply for collected
 * runs: their stdout and stderr go to files, and stdin is /dev/null when
 * there is no input (a streamed run keeps pipes and sends each chunk on). Node's three pipe streams were a third of the helper's
 * CPU per run (measured on the 2-core VM, `git --version`: 5.3 ms piped,
 * 3.7 ms so).
 */
export const HELPER_SOURCE = `
const { spawn } = require("node:child_process");
const { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync } = require("node:fs");
const { join } = require("node:path");
// Output files are read once the program has ended, and unlinked as soon as
// they are open: nothing is left behind but the folder, removed at the end.
// The scratch prefix (scratch.ts), so a helper killed with its process is swept too.
const folder = mkdtempSync(join(process.argv[1], "patchwright-tmp-spawner-" + process.pid + "-"));
let files = 0;
const openOutput = () => {
  const path = join(folder, String(files++));
  const fd = openSync(path, "w+");
  unlinkSync(path);
  return fd;
};
// Read at explicit positions: the program shared this descriptor's offset and left it at the end.
const readOutput = (fd) => {
  const bytes = Buffer.allocUnsafe(fstatSync(fd).size);
  let at = 0;
  while (at < bytes.length) {
    const read = readSync(fd, bytes, at, bytes.length - at, at);
    if (read === 0) break;
    at += read;
  }
  closeSync(fd);
  return bytes.subarray(0, at);
};
const running = new Map();
process.on("message", (m) => {
  if (m.kill !== undefined) {
    const pid = running.get(m.kill)?.pid;
    try { if (pid) process.kill(-pid, m.signal); } catch {}
    return;
  }
  if (m.closePipes !== undefined) {
    const child = running.get(m.closePipes);
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    return;
  }
  if (m.stream) return stream(m);
  let out;
  let err;
  try {
    out = openOutput();
    err = openOutput();
  } catch {
    // No room for the files (a full or read-only disk): pipes, as runDirectly.
    for (const fd of [out, err]) if (fd !== undefined) closeSync(fd);
    out = err = undefined;
  }
  let child;
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: [m.input === undefined ? "ignore" : "pipe", out ?? "pipe", err ?? "pipe"], detached: true });
  } catch (e) {
    for (const fd of [out, err]) if (fd !== undefined) closeSync(fd);
    process.send({ id: m.id, error: { message: e.message, code: e.code } });
    return;
  }
  running.set(m.id, child);
  const piped = { out: [], err: [] };
  child.stdout?.on("data", (c) => piped.out.push(c));
  child.stderr?.on("data", (c) => piped.err.push(c));
  let failed;
  child.on("error", (e) => {
    failed ??= { message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, path: e.path };
  });
  child.on("close", (code) => {
    running.delete(m.id);
    const stdout = out === undefined ? Buffer.concat(piped.out) : readOutput(out);
    const stderr = err === undefined ? Buffer.concat(piped.err) : readOutput(err);
    process.send(failed ? { id: m.id, error: failed } : { id: m.id, code, stdout, stderr });
  });
  // Without input, stdin is /dev/null: the same end of file as a pipe closed at once.
  child.stdin?.on("error", () => {});
  child.stdin?.end(m.input);
});
// A streamed run (a shell command's live output): pipes, each chunk sent on as it comes.
const stream = (m) => {
  let child;
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  } catch (e) {
    process.send({ id: m.id, error: { message: e.message, code: e.code } });
    return;
  }
  running.set(m.id, child);
  if (child.pid !== undefined) process.send({ id: m.id, pid: child.pid });
  child.stdout.on("data", (chunk) => process.send({ id: m.id, stream: "stdout", chunk }));
  child.stderr.on("data", (chunk) => process.send({ id: m.id, stream: "stderr", chunk }));
  let failed = false;
  child.on("error", (e) => {
    if (failed) return;
    failed = true;
    running.delete(m.id);
    process.send({ id: m.id, error: { message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, path: e.path } });
  });
  child.on("exit", (code, signal) => { if (!failed) process.send({ id: m.id, exit: { code, signal } }); });
  child.on("close", () => {
    running.delete(m.id);
    if (!failed) process.send({ id: m.id, closed: true });
  });
};
// Ctrl+C reaches the whole foreground group, and a service manager may signal
// every process: the caller decides how to stop and may still need git then.
// The helper ends when the caller has (its channel closes).
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]) process.on(signal, () => {});
process.on("disconnect", () => { rmSync(folder, { recursive: true, force: true }); process.exit(0); });
process.send({ ready: true });
`;
