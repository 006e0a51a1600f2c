import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{d as e,e as t}from"./chunk-ZXHTQWC4.js";import"./chunk-U5QM5WZ3.js";import"./chunk-5RHGCSKL.js";var s=class extends t{messages=new e(this)};export{s as default};
