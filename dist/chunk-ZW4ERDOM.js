const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{b as g,j as v}from"./chunk-YDQP6KVS.js";function S(e,r,t){let s,o=new Promise((d,n)=>{s=g(e,r,{cwd:t.cwd,env:t.env,stdio:[t.input===void 0?"ignore":"pipe","pipe","pipe"],detached:!0}),P(s,t.input,d,n)});return{killGroup:d=>R(s?.pid,d),done:o}}function P(e,r,t,s){let o=[],d=[];e.stdout?.on("data",n=>o.push(n)),e.stderr?.on("data",n=>d.push(n)),e.on("error",s),e.on("close",n=>t({code:n,stdout:Buffer.concat(o),stderr:Buffer.concat(d)})),e.stdin?.on("error",()=>{}),e.stdin?.end(r)}function R(e,r){try{e&&process.kill(-e,r)}catch{}}function G(e){if(!e)return!1;try{return process.kill(-e,0),!0}catch{return!1}}function w(e,r,t,s){let o=g(e,r,{cwd:t.cwd,env:t.env,stdio:["ignore","pipe","pipe"],detached:!0});o.stdout.on("data",n=>s.output("stdout",n)),o.stderr.on("data",n=>s.output("stderr",n));let d=!1;return o.on("error",n=>{d||(d=!0,s.error(n))}),o.on("exit",(n,y)=>{d||s.exit(n,y)}),o.on("close",()=>{d||s.close()}),{killGroup:n=>R(o.pid,n),groupAlive:()=>G(o.pid),closePipes:()=>{o.stdout.destroy(),o.stderr.destroy()}}}var x=`
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
`;function b(e){let{message:r,...t}=e;return Object.assign(new Error(r),t)}function O(e){let r;try{r=g(process.execPath,["-e",x,v()],{env:{},stdio:["ignore","ignore","inherit","ipc"],serialization:"advanced"})}catch{return}let t=new Map,s=0,o=u=>{u?(r.ref(),r.channel?.ref()):(r.unref(),r.channel?.unref())},d=(u,c)=>{t.set(u,c),t.size===1&&o(!0)},n={ready:!1,run(u,c,f){let l=s++,a=new Promise((p,i)=>{d(l,h=>(h.error?i(b(h.error)):p({code:h.code??null,stdout:k(h.stdout),stderr:k(h.stderr)}),"done"))});return r.send({id:l,file:u,args:c,cwd:f.cwd,env:f.env,input:f.input}),{killGroup:p=>{t.has(l)&&r.send({kill:l,signal:p})},done:a}},stream(u,c,f,l){let a=s++,p;return d(a,i=>{if(i.error)return l.error(b(i.error)),"done";if(i.pid!==void 0)p=i.pid;else if(i.chunk&&i.stream)l.output(i.stream,k(i.chunk));else if(i.exit)l.exit(i.exit.code,i.exit.signal);else if(i.closed)return l.close(),"done";return"more"}),r.send({id:a,stream:!0,file:u,args:c,cwd:f.cwd,env:f.env}),{killGroup:i=>{p!==void 0?R(p,i):t.has(a)&&r.send({kill:a,signal:i})},groupAlive:()=>G(p),closePipes:()=>{t.has(a)&&r.send({closePipes:a})}}}},y=()=>{e(n),n.ready=!1;let u=[...t.values()];t.clear();for(let c of u)c({id:-1,error:{message:"the process helper exited before the program finished"}})};return r.on("error",y),r.on("exit",y),r.on("message",u=>{if("ready"in u){n.ready=!0;return}let c=t.get(u.id);!c||c(u)==="more"||(t.delete(u.id),t.size===0&&o(!1))}),o(!1),n}function k(e){return e?Buffer.from(e.buffer,e.byteOffset,e.byteLength):Buffer.alloc(0)}function q(e,r,t){let s=B();return s?s.run(e,r,t):S(e,r,t)}var E=!0;function L(e){E=e}function M(e,r,t,s){let o=B();return o?o.stream(e,r,t,s):w(e,r,t,s)}var m=null;function B(){if(E)return m===null&&(m=O(e=>{m===e&&(m=void 0)})),m?.ready?m:void 0}export{q as a,L as b,M as c};
