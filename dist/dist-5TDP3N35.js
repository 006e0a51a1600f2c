import { createRequire as __patchwrightCreateRequire } from "node:module";
const require = __patchwrightCreateRequire(import.meta.url);
import{b as a}from"./chunk-WIJPZATL.js";import"./chunk-JCUTU5MN.js";import"./chunk-5RHGCSKL.js";export default a();
