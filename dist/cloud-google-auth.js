const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{a}from"./cloud-chunk-VB5A7TEZ.js";import"./cloud-chunk-U25AJQSS.js";export default a();
