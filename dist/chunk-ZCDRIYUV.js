const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{b as f}from"./chunk-JGETLSZS.js";import{g as p}from"./chunk-BNK7KWHE.js";function O(e,n,o){let t=g?v():void 0;return t?.ready?t.run(e,n,o):w(e,n,o)}var g=!0;function x(e){g=e}function w(e,n,o){let t,s=new Promise((i,r)=>{t=f(e,n,{cwd:o.cwd,env:o.env,stdio:[o.input===void 0?"ignore":"pipe","pipe","pipe"],detached:!0}),R(t,o.input,i,r)});return{killGroup:i=>S(t?.pid,i),done:s}}function R(e,n,o,t){let s=[],i=[];e.stdout?.on("data",r=>s.push(r)),e.stderr?.on("data",r=>i.push(r)),e.on("error",t),e.on("close",r=>o({code:r,stdout:Buffer.concat(s),stderr:Buffer.concat(i)})),e.stdin?.on("error",()=>{}),e.stdin?.end(n)}function S(e,n){try{e&&process.kill(-e,n)}catch{}}var l=null;function v(){return l===null&&(l=G()),l}function G(){let e;try{e=f(process.execPath,["-e",b,p()],{env:{},stdio:["ignore","ignore","inherit","ipc"],serialization:"advanced"})}catch{return}let n=new Map,o=0,t=r=>{r?(e.ref(),e.channel?.ref()):(e.unref(),e.channel?.unref())},s={ready:!1,run(r,u,c){let d=o++,m=new Promise((a,y)=>{n.set(d,{resolve:a,reject:y})});return n.size===1&&t(!0),e.send({id:d,file:r,args:u,cwd:c.cwd,env:c.env,input:c.input}),{killGroup:a=>{n.has(d)&&e.send({kill:d,signal:a})},done:m}}},i=()=>{l===s&&(l=void 0),s.ready=!1;for(let{reject:r}of n.values())r(new Error("the process helper exited before the program finished"));n.clear()};return e.on("error",i),e.on("exit",i),e.on("message",r=>{if("ready"in r){s.ready=!0;return}let u=n.get(r.id);if(u){if(n.delete(r.id),n.size===0&&t(!1),r.error){let{message:c,...d}=r.error;u.reject(Object.assign(new Error(c),d));return}u.resolve({code:r.code??null,stdout:h(r.stdout),stderr:h(r.stderr)})}}),t(!1),s}function h(e){return e?Buffer.from(e.buffer,e.byteOffset,e.byteLength):Buffer.alloc(0)}var b=`
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
// Ctrl+C reaches the whole foreground group, and a service manager may signal
// every process: the caller decides how to stop and may still need git then.
// The helper ends when the caller has (its channel closes).
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]) process.on(signal, () => {});
process.on("disconnect", () => { rmSync(folder, { recursive: true, force: true }); process.exit(0); });
process.send({ ready: true });
`;export{O as a,x as b};
