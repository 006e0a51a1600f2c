const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{b as g}from"./chunk-JGETLSZS.js";import{g as v}from"./chunk-BNK7KWHE.js";function A(e,r,t){let n=R?b():void 0;return n?.ready?n.run(e,r,t):G(e,r,t)}var R=!0;function I(e){R=e}function G(e,r,t){let n,o=new Promise((d,s)=>{n=g(e,r,{cwd:t.cwd,env:t.env,stdio:[t.input===void 0?"ignore":"pipe","pipe","pipe"],detached:!0}),x(n,t.input,d,s)});return{killGroup:d=>S(n?.pid,d),done:o}}function x(e,r,t,n){let o=[],d=[];e.stdout?.on("data",s=>o.push(s)),e.stderr?.on("data",s=>d.push(s)),e.on("error",n),e.on("close",s=>t({code:s,stdout:Buffer.concat(o),stderr:Buffer.concat(d)})),e.stdin?.on("error",()=>{}),e.stdin?.end(r)}function S(e,r){try{e&&process.kill(-e,r)}catch{}}function w(e){if(!e)return!1;try{return process.kill(-e,0),!0}catch{return!1}}function N(e,r,t,n){let o=R?b():void 0;return o?.ready?o.stream(e,r,t,n):O(e,r,t,n)}function O(e,r,t,n){let o=g(e,r,{cwd:t.cwd,env:t.env,stdio:["ignore","pipe","pipe"],detached:!0});o.stdout.on("data",s=>n.output("stdout",s)),o.stderr.on("data",s=>n.output("stderr",s));let d=!1;return o.on("error",s=>{d||(d=!0,n.error(s))}),o.on("exit",(s,u)=>{d||n.exit(s,u)}),o.on("close",()=>{d||n.close()}),{killGroup:s=>S(o.pid,s),groupAlive:()=>w(o.pid),closePipes:()=>{o.stdout.destroy(),o.stderr.destroy()}}}var h=null;function b(){return h===null&&(h=B()),h}function k(e){let{message:r,...t}=e;return Object.assign(new Error(r),t)}function B(){let e;try{e=g(process.execPath,["-e",P,v()],{env:{},stdio:["ignore","ignore","inherit","ipc"],serialization:"advanced"})}catch{return}let r=new Map,t=0,n=u=>{u?(e.ref(),e.channel?.ref()):(e.unref(),e.channel?.unref())},o=(u,c)=>{r.set(u,c),r.size===1&&n(!0)},d={ready:!1,run(u,c,p){let l=t++,a=new Promise((f,i)=>{o(l,m=>(m.error?i(k(m.error)):f({code:m.code??null,stdout:y(m.stdout),stderr:y(m.stderr)}),"done"))});return e.send({id:l,file:u,args:c,cwd:p.cwd,env:p.env,input:p.input}),{killGroup:f=>{r.has(l)&&e.send({kill:l,signal:f})},done:a}},stream(u,c,p,l){let a=t++,f;return o(a,i=>{if(i.error)return l.error(k(i.error)),"done";if(i.pid!==void 0)f=i.pid;else if(i.chunk&&i.stream)l.output(i.stream,y(i.chunk));else if(i.exit)l.exit(i.exit.code,i.exit.signal);else if(i.closed)return l.close(),"done";return"more"}),e.send({id:a,stream:!0,file:u,args:c,cwd:p.cwd,env:p.env}),{killGroup:i=>{f!==void 0?S(f,i):r.has(a)&&e.send({kill:a,signal:i})},groupAlive:()=>w(f),closePipes:()=>{r.has(a)&&e.send({closePipes:a})}}}},s=()=>{h===d&&(h=void 0),d.ready=!1;let u=[...r.values()];r.clear();for(let c of u)c({id:-1,error:{message:"the process helper exited before the program finished"}})};return e.on("error",s),e.on("exit",s),e.on("message",u=>{if("ready"in u){d.ready=!0;return}let c=r.get(u.id);!c||c(u)==="more"||(r.delete(u.id),r.size===0&&n(!1))}),n(!1),d}function y(e){return e?Buffer.from(e.buffer,e.byteOffset,e.byteLength):Buffer.alloc(0)}var P=`
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
`;export{A as a,I as b,N as c};
