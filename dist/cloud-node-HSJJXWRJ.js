import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{a,b,c,d,e,f,g}from"./cloud-chunk-SOWY2H76.js";import"./cloud-chunk-JC6BZEIU.js";export{a as child_process,b as crypto,c as fs,d as os,e as path,f as stream,g as util};
