const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
var t=".github/patchwright.yml";export{t as a};
