import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{c as a}from"./chunk-5ADVXITM.js";import"./chunk-5RHGCSKL.js";export default a();
