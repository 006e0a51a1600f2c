/**
 * The one stylesheet, served from /jobs/static/pages.css: both themes from
 * prefers-color-scheme, contrast above 4.5:1 for text, visible focus, and
 * tables that scroll sideways on a phone instead of squeezing.
 */
export const PAGES_CSS = `
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
`;
