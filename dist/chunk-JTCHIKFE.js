const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{f as t}from"./chunk-Y4RNAQ4S.js";async function c(i,r,n){return t(i,{env:n}).raw(["diff","--binary","--no-color","--no-ext-diff",r,"HEAD"])}export{c as a};
