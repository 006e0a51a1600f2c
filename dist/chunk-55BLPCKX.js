const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{Aa as u,Ba as p,Bb as b,Ca as a,Cb as y,Da as o,Db as k,Fa as c,Ga as $,Ha as m,Ia as g,Ja as h,Ma as f,za as l}from"./chunk-PLR3PMTG.js";var R=30,T=3e3,x=1500,M="\u26A0\uFE0F **Nothing was run to check this change:** the agent ran no tests, linters, type checks or builds, and no `verify` command ran.";function C(e){let{checks:t,verify:n}=e;if(t?.length===0&&!n)return M;let r=[];return t?.length?(r.push("**Run by the agent**, in order:",j(t)),r.push(...y(t).map(A))):t&&r.push("The agent ran no tests, linters, type checks or builds itself."),n?r.push("**Verify**, the configured command, run after the agent:",U(n)):t?.length&&r.push("No `verify` command ran after the agent."),r.join(`

`)}function j(e){let t=e.slice(-R),n=t.map(s=>{let i=b(s);return`- ${i.icon} ${o(s.command)} \u2014 ${i.words}`}),r=e.slice(0,e.length-t.length);if(r.length>0){let s=r.filter(i=>!i.passed).length;n.unshift(`- _${a(r.length,"earlier run")} not listed, ${s} of them failed_`)}return n.join(`
`)}function A(e){let t=e.command.replace(/\s+/g," ").trim(),n=t.length>80?`${t.slice(0,79)}\u2026`:t,r=c(h(e.outputTail.trimEnd(),x),"text");return m(`Output of ${n} (exit ${e.exit}, last lines)`,r)}function U(e){let t=o(e.command),n=e.exit.replace(/\s+/g," "),r=e.passed?`\u2705 ${t} passed`:`\u274C ${t} failed (exit ${n})`,s=e.networkTrouble?`${r}

\u26A0\uFE0F ${e.networkTrouble}`:r;if(!e.outputTail.trim())return s;let i=c(h(e.outputTail.trimEnd(),T),"text");return`${s}

${m("Output (last lines)",i)}`}var F=2e4,d=100,S=50;function G(e){let t=[H(e.summary,F)];e.closes!==void 0&&t.push(`Closes #${e.closes}`),e.stopReason!=="end_turn"&&t.push(`> [!WARNING]
> The agent stopped before finishing (${E[e.stopReason]}). This is the work done so far.`),e.files.length>0&&t.push(`### Changes

${N(e.files)}`),e.commits.length>0&&t.push(`### Commits

${q(e.commits)}`),e.drift?.length&&t.push(I(e.drift));let n=C(e);n&&t.push(`### Checks

${n}`),e.mcp?.used.length&&t.push(`### MCP tools used

${w(e.mcp.used)}`),t.push(`### Usage

${O(e)}`);let r=e.request.url?`[@${e.request.login}'s request](${e.request.url})`:`@${e.request.login}'s request`,s=e.jobPage?` \xB7 [Job page](${e.jobPage})`:"";return t.push(`---
<sub>Made by patchwright at ${r}.${s}</sub>`),t.join(`

`)}function w(e){return e.map(t=>`- ${o(t)}`).join(`
`)}function J(e){if(!e)return"";let t=[];return e.failures.length>0&&t.push(["**MCP servers that did not start** (the job went on without them):",...e.failures.map(n=>`- ${o(n.server)}: ${f(n.message,300)}`)].join(`
`)),e.used.length>0&&t.push(`MCP tools used: ${e.used.map(n=>o(n)).join(", ")}`),t.join(`

`)}function N(e){let t=e.slice(0,d).map(s=>{let i=`${o(s.path,200)}${P[s.status]}`;return s.status==="binary"?`| ${g(i)} | | |`:`| ${g(i)} | +${s.additions} | \u2212${s.deletions} |`}),n=e.length-d;n>0&&t.push(`| _and ${a(n,"more file")}_ | | |`);let r=k(e);return t.push(`| **${a(e.length,"file")}** | **+${r.additions}** | **\u2212${r.deletions}** |`),["| File | Added | Removed |","| --- | ---: | ---: |",...t].join(`
`)}var P={added:" (new)",modified:"",deleted:" (deleted)",binary:" (binary)"};function q(e){let t=e.slice(0,S).map(r=>`- ${r.sha.slice(0,7)} ${W(r.subject)}`),n=e.length-S;return n>0&&t.push(`- _and ${a(n,"more commit")}_`),t.join(`
`)}function I(e){let t=e.slice(0,d).map(r=>o(r,200)),n=e.length-d;return n>0&&t.push(`and ${a(n,"more file")}`),["> [!WARNING]",`> The agent's recorded changes did not match the workspace it left, for ${t.join(", ")}.`,"> The branch holds the workspace's content. Please report this as a patchwright bug."].join(`
`)}function O(e){let t=e.usage;return[a(e.turns,"turn"),p(e.durationMs),`${t.estimated?"about ":""}${u(t.inputTokens)} tokens in, ${u(t.outputTokens)} out, ${u(t.cacheReadTokens)} cache read, ${u(t.cacheWriteTokens)} cache write${t.estimated?" (estimated from the text: the model's server reports no usage)":""}`,e.budgetUsd===void 0||!Number.isFinite(e.budgetUsd)?l(e.costUsd):`${l(e.costUsd)} of $${e.budgetUsd.toFixed(2)} budget`,o(e.model)].join(" \xB7 ")}var E={end_turn:"finished",max_turns:"turn limit reached",max_cost:"cost limit reached",timeout:"time limit reached",aborted:"cancelled",refusal:"the model declined",error:"an error"};function H(e,t){let n=f(e.trim(),t);return n?`The agent's summary:

${$(n)}`:"_The agent gave no summary._"}function W(e){return e.replace(/\s*\n\s*/g," ").trim()}var _=1e3;function z(e,t="**Warnings**"){let n=e.map(r=>r.length>_?`${r.slice(0,_-1)}\u2026`:r).join(`

`);return`${t}

${c(n,"text")}`}export{C as a,G as b,J as c,q as d,I as e,O as f,H as g,z as h};
