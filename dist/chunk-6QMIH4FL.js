const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
var t=".github/patchwright.yml",o="@agent",A="agent";export{t as a,o as b,A as c};
