const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import"./chunk-B6CI6ELM.js";import"./chunk-QQ4IF66A.js";import{m as i}from"./chunk-KBBHQVXH.js";import"./chunk-2YJIEU6J.js";i({jitless:!0});
