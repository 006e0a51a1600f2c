const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
import{Ib as r,Jb as f}from"./chunk-PLR3PMTG.js";import"./chunk-ECL22HZM.js";import"./chunk-Y4RNAQ4S.js";import"./chunk-ZW4ERDOM.js";import"./chunk-MUJ6NHSD.js";import"./chunk-F7HZZZ74.js";import"./chunk-JR63ZGJI.js";import"./chunk-4L5ZS5HO.js";import"./chunk-NB2W5YQK.js";import"./chunk-YDQP6KVS.js";import"./chunk-Y6OPNJVI.js";import"./chunk-2UCJ7ZQ3.js";import"./chunk-2YJIEU6J.js";function m(e){if(e===void 0||!Number.isFinite(e)||e<0)return"";let t=Math.round(e/1e3);if(t<60)return`${t} s`;let n=Math.floor(t/60);return n<60?`${n} min ${t%60} s`:`${Math.floor(n/60)} h ${n%60} min`}function d(e){return e===void 0?"":`$${e<10?e.toFixed(3):e.toFixed(2)}`}function i(e){return e===void 0?"":e.toLocaleString("en-US")}function w(e){return e.cancelledBy&&(e.state==="done"||e.state==="failed")?"cancelled":e.cancelledBy&&e.state==="running"?"cancelling":e.state}function g(e){let t=w(e);return r`<span class="state state-${t}">${t}</span>`}function b(e,t){let n=e.startedAt??(e.state==="queued"?t:e.finishedAt);return n===void 0?void 0:n-e.createdAt}function h(e,t){if(e.startedAt!==void 0)return(e.finishedAt??t)-e.startedAt}function l(e,t){return e?/^https?:\/\//i.test(e)?r`<a href="${e}">${t}</a>`:r`${t}`:r``}function c(e){return`${e.task??e.kind} on ${e.repo.owner}/${e.repo.name}`}function x(e){return`/jobs/${encodeURIComponent(e)}`}function u(e,t){let n=new Date(e.at).toISOString().slice(11,19),a=r`<time class="meta" datetime="${new Date(e.at).toISOString()}">${n}</time>`,o=(s,p)=>r`<li id="ev-${t}" class="ev ev-${s}">${a} ${p}</li>`;switch(e.type){case"state":return o("state",r`<span class="label">State: ${e.state}</span>${e.by?` by ${e.by}`:""}${e.message?r` <span class="meta">${e.message}</span>`:""}`);case"step":return o("step",r`<span class="label">Step</span>${e.text}${e.note?r` <span class="meta">${e.note}</span>`:""}`);case"warning":return o("warning",r`<span class="label">Warning</span>${e.text}`);case"text":return o("text",r`<span class="label">Agent</span><div class="text">${e.text}</div>`);case"tool_call":return o("tool_call",r`<span class="label">Tool call: ${e.name}</span><span class="meta">turn ${e.turn}</span><pre>${e.input}</pre>`);case"tool_result":return r`<li id="ev-${t}" class="ev ev-tool_result${e.isError?" error":""}">${a} <span class="label">${e.isError?"Tool error":"Result"}: ${e.name}</span><pre>${v(e.tail)}</pre></li>`;case"denied":return o("denied",r`<span class="label">Denied: ${e.name}</span>${e.reason}`);case"usage":return o("usage",r`<span class="meta">Turn ${e.turn}: ${d(e.costUsd)} &middot; ${i(e.inputTokens)} in, ${i(e.outputTokens)} out</span>`);case"checkpoint":return o("checkpoint",r`<span class="label">Checkpoint</span><code>${e.sha.slice(0,12)}</code>`);case"pushed":return o("pushed",r`<span class="label">Pushed</span><code>${e.branch}</code>`);case"report":return o("report",r`<h2>Final report (${e.outcome})</h2><pre class="report">${e.markdown}</pre>`)}}function v(e){let t=e.split(`
`);return t.some(a=>a.startsWith("@@"))||t[0]?.startsWith("--- ")?r`${t.map(a=>a.startsWith("+")&&!a.startsWith("+++")?r`<span class="add">${a}</span>`:a.startsWith("-")&&!a.startsWith("---")?r`<span class="del">${a}</span>`:r`${a}\n`)}`:r`${e}`}var q=JSON.stringify({includeIndicatorStyles:!1,allowEval:!1,allowScriptTags:!1,selfRequestsOnly:!0});function k(e){return e.state==="done"||e.state==="failed"}function $(e){let{job:t,now:n}=e,a=(o,s)=>r`<dt>${o}</dt><dd>${s===""?r`<span class="muted">&ndash;</span>`:s}</dd>`;return r`<dl>
${a("State",g(t))}
${t.cancelledBy?a("Cancelled by",t.cancelledBy):""}
${a("Kind",t.task?`${t.kind} (${t.task})`:t.kind)}
${a("Repository",`${t.repo.owner}/${t.repo.name}`)}
${a("Requester",t.requester??"")}
${a("Trigger",l(t.triggerUrl,t.triggerUrl??""))}
${t.state==="queued"?a("Queue position",String(t.queuePosition??"")):""}
${a("Wait",m(b(t,n)))}
${a("Run time",m(h(t,n)))}
${a("Turns",i(t.turns))}
${a("Tokens",i(t.tokens))}
${a("Cost",r`<span id="job-cost">${d(t.costUsd)||"\u2013"}</span>`)}
${a("Outcome",t.outcome?`${t.outcome.conclusion}${t.outcome.message?`: ${t.outcome.message}`:""}`:"")}
${a("Links",r`${l(t.links.pullRequest,"pull request")} ${l(t.links.branch,"branch")} ${l(t.links.comment,"comment")}`)}
</dl>
${S(e)}`}function S(e){let{job:t}=e;if(!e.canControl)return r``;let n=(o,s,p)=>r`<form method="post" action="${x(t.id)}/${o}">
<input type="hidden" name="csrf" value="${e.viewer.csrf}">
<button type="submit" class="${p}">${s}</button>
</form>`,a=[];return!k(t)&&!t.cancelledBy&&a.push(n("cancel","Cancel job","danger")),t.state==="failed"&&a.push(n("retry","Retry job","")),a.length?r`<div class="controls">${a}</div>`:r``}var y=`
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0;
  --panel: #f6f8fa; --link: #0550ae; --ok: #116329; --bad: #a40e26; --run: #7d4e00; --queued: #59636e;
  --add: #dafbe1; --del: #ffebe9; --bar: #0969da; --bar2: #1a7f37; --focus: #0969da; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23;
    --link: #71b7ff; --ok: #56d364; --bad: #ff7b72; --run: #e3b341; --queued: #9198a1;
    --add: #12361f; --del: #4a1717; --bar: #4493f8; --bar2: #3fb950; --focus: #71b7ff; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; z-index: 1; }
.top { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; justify-content: space-between;
  padding: 8px 16px; border-bottom: 1px solid var(--line); background: var(--panel); }
.top nav a { margin-right: 12px; font-weight: 600; }
.who { display: flex; gap: 8px; align-items: center; margin: 0; }
main { padding: 16px; max-width: 1400px; margin: 0 auto; }
h1 { font-size: 1.5rem; margin: 0 0 12px; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 24px 0 8px; }
button, input, select { font: inherit; color: inherit; background: var(--bg);
  border: 1px solid var(--muted); border-radius: 6px; padding: 4px 10px; }
button { cursor: pointer; background: var(--panel); }
button.danger { color: var(--bad); border-color: var(--bad); }
.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end; margin-bottom: 12px; }
.filters label { display: flex; flex-direction: column; font-size: 0.9rem; color: var(--muted); }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
caption { text-align: left; padding: 8px; color: var(--muted); }
th, td { text-align: left; padding: 6px 8px; border-top: 1px solid var(--line); white-space: nowrap; vertical-align: top; }
th { background: var(--panel); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.state { font-weight: 600; }
.state-done { color: var(--ok); } .state-failed, .state-cancelled { color: var(--bad); }
.state-running, .state-cancelling { color: var(--run); } .state-queued { color: var(--queued); }
.summary dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0 0 12px; }
.summary dt { color: var(--muted); } .summary dd { margin: 0; overflow-wrap: anywhere; }
.controls { display: flex; gap: 8px; margin: 8px 0; }
.controls form { margin: 0; }
ol.transcript { list-style: none; padding: 0; margin: 0; }
.ev { border-left: 3px solid var(--line); padding: 4px 10px; margin: 6px 0; overflow-wrap: anywhere; }
.ev-tool_call { border-color: var(--bar); } .ev-tool_result.error, .ev-denied, .ev-warning { border-color: var(--bad); }
.ev-state { border-color: var(--run); } .ev-report { border-color: var(--ok); }
.ev .label { font-weight: 600; margin-right: 6px; }
.ev .meta { color: var(--muted); font-size: 0.85rem; }
pre { background: var(--panel); padding: 8px; border-radius: 6px; overflow-x: auto; margin: 4px 0;
  white-space: pre-wrap; word-break: break-word; font-size: 0.85rem; max-height: 32rem; }
pre .add { background: var(--add); display: block; } pre .del { background: var(--del); display: block; }
.text { white-space: pre-wrap; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 12px; background: var(--panel); }
.card h2, .card h3 { margin: 0 0 8px; font-size: 1rem; }
.summary-grid { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
.summary-grid dt { color: var(--muted); } .summary-grid dd { margin: 0; text-align: right; }
svg.chart { width: 100%; height: auto; }
svg.chart .bar { fill: var(--bar); } svg.chart .bar2 { fill: var(--bar2); }
svg.chart text { fill: var(--muted); font-size: 10px; }
svg.chart .axis { stroke: var(--line); }
.muted { color: var(--muted); }
.htmx-request.htmx-indicator { opacity: 1; } .htmx-indicator { opacity: 0; }
@media (max-width: 640px) { main { padding: 8px; } h1 { font-size: 1.25rem; } }
`;function D(e){let{job:t}=e,n={login:"",csrf:"",operator:!1};return r`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${c(t)} &middot; patchwright</title>
<style>${f(y)}</style>
</head>
<body>
<main id="main">
<h1>${c(t)} <span class="muted">(${t.id})</span></h1>
<section class="summary" aria-label="Job summary">
${$({job:t,viewer:n,canControl:!1,now:e.now})}
</section>
<h2 id="transcript-heading">Transcript</h2>
<ol class="transcript" aria-labelledby="transcript-heading">
${e.events.map((a,o)=>u(a,o))}
</ol>
</main>
</body>
</html>`}export{D as renderStandaloneJob};
