const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{Na as i,i as o,m as e}from"./chunk-KBBHQVXH.js";e(i());function f(r,n){return r.issues.push({code:"custom",message:n,input:r.value}),o}export{f as a};
