import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{b as t,c as o,d as r,f as e}from"./chunk-V64XCD5U.js";var i="22.0.1";var a=t.plugin(o,e,r).defaults({userAgent:`octokit-rest.js/${i}`});export{a};
