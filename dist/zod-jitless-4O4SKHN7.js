const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import"./chunk-225S4KSH.js";import"./chunk-QQ4IF66A.js";import{m as i}from"./chunk-KBBHQVXH.js";import"./chunk-2YJIEU6J.js";i({jitless:!0});
