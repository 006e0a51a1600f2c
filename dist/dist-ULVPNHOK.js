const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{a}from"./chunk-XFKCSUPM.js";import"./chunk-2YJIEU6J.js";export default a();
