const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
function n(t){return Object.fromEntries(Object.entries(t).filter(([e])=>!/^(INPUT_|ACTIONS_)/.test(e)&&e!=="GITHUB_TOKEN"))}export{n as a};
