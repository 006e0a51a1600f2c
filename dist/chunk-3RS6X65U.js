import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{Na as i,i as o,m as e}from"./chunk-3WYY7CVH.js";e(i());function f(r,n){return r.issues.push({code:"custom",message:n,input:r.value}),o}export{f as a};
