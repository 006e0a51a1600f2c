const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{Na as t,i as o,m as n}from"./chunk-KBBHQVXH.js";n(t());function s(e,r){return e.issues.push({code:"custom",message:r,input:e.value}),o}function a(e){let r;return()=>(r??={value:e()},r.value)}export{s as a,a as b};
