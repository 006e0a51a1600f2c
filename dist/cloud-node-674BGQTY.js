const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{a,b,c,d,e,f,g}from"./cloud-chunk-FUVN3HA6.js";import"./cloud-chunk-U25AJQSS.js";export{a as child_process,b as crypto,c as fs,d as os,e as path,f as stream,g as util};
