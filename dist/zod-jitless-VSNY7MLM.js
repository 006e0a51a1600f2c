const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import"./chunk-JS4T5ABC.js";import"./chunk-QQ4IF66A.js";import{m as i}from"./chunk-KBBHQVXH.js";import"./chunk-2YJIEU6J.js";i({jitless:!0});
