import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{a,b,c,d,e,f,g}from"./chunk-EJDB3ATD.js";import"./chunk-Y25O2SDR.js";export{a as child_process,b as crypto,c as fs,d as os,e as path,f as stream,g as util};
