import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{spawn as p}from"node:child_process";function x(e,n,o){let t=h?v():void 0;return t?.ready?t.run(e,n,o):R(e,n,o)}var h=!0;function H(e){h=e}function R(e,n,o){let t,s=new Promise((i,r)=>{t=p(e,n,{cwd:o.cwd,env:o.env,stdio:["pipe","pipe","pipe"],detached:!0}),G(t,o.input,i,r)});return{killGroup:i=>w(t?.pid,i),done:s}}function G(e,n,o,t){let s=[],i=[];e.stdout?.on("data",r=>s.push(r)),e.stderr?.on("data",r=>i.push(r)),e.on("error",t),e.on("close",r=>o({code:r,stdout:Buffer.concat(s),stderr:Buffer.concat(i)})),e.stdin?.on("error",()=>{}),e.stdin?.end(n)}function w(e,n){try{e&&process.kill(-e,n)}catch{}}var l=null;function v(){return l===null&&(l=y()),l}function y(){let e;try{e=p(process.execPath,["-e",B],{env:{},stdio:["ignore","ignore","inherit","ipc"],serialization:"advanced"})}catch{return}let n=new Map,o=0,t=r=>{r?(e.ref(),e.channel?.ref()):(e.unref(),e.channel?.unref())},s={ready:!1,run(r,u,c){let d=o++,g=new Promise((a,m)=>{n.set(d,{resolve:a,reject:m})});return n.size===1&&t(!0),e.send({id:d,file:r,args:u,cwd:c.cwd,env:c.env,input:c.input}),{killGroup:a=>{n.has(d)&&e.send({kill:d,signal:a})},done:g}}},i=()=>{l===s&&(l=void 0),s.ready=!1;for(let{reject:r}of n.values())r(new Error("the process helper exited before the program finished"));n.clear()};return e.on("error",i),e.on("exit",i),e.on("message",r=>{if("ready"in r){s.ready=!0;return}let u=n.get(r.id);if(u){if(n.delete(r.id),n.size===0&&t(!1),r.error){let{message:c,...d}=r.error;u.reject(Object.assign(new Error(c),d));return}u.resolve({code:r.code??null,stdout:f(r.stdout),stderr:f(r.stderr)})}}),t(!1),s}function f(e){return e?Buffer.from(e.buffer,e.byteOffset,e.byteLength):Buffer.alloc(0)}var B=`
const { spawn } = require("node:child_process");
const running = new Map();
process.on("message", (m) => {
  if (m.kill !== undefined) {
    const pid = running.get(m.kill)?.pid;
    try { if (pid) process.kill(-pid, m.signal); } catch {}
    return;
  }
  let child;
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  } catch (e) {
    process.send({ id: m.id, error: { message: e.message, code: e.code } });
    return;
  }
  running.set(m.id, child);
  const out = [];
  const err = [];
  let failed;
  child.stdout.on("data", (c) => out.push(c));
  child.stderr.on("data", (c) => err.push(c));
  child.on("error", (e) => {
    failed ??= { message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, path: e.path };
  });
  child.on("close", (code) => {
    running.delete(m.id);
    process.send(failed ? { id: m.id, error: failed } : { id: m.id, code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
  });
  child.stdin.on("error", () => {});
  child.stdin.end(m.input);
});
// Ctrl+C reaches the whole foreground group, and a service manager may signal
// every process: the caller decides how to stop and may still need git then.
// The helper ends when the caller has (its channel closes).
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]) process.on(signal, () => {});
process.on("disconnect", () => process.exit(0));
process.send({ ready: true });
`;export{x as a,H as b};
