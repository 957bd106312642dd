// The inbox page's HTML shell and stylesheet. The app (`/app.js`) renders everything inside `#app`; no inline script
// or style, so the page's Content-Security-Policy allows only its own files.

/** The HTML every page route answers with. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>durable-agent inbox</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<div id="app"><p class="muted">Loading…</p></div>
<script type="module" src="/app.js"></script>
</body>
</html>
`;

/** What a browser without a session is shown. */
export const SIGNED_OUT_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>durable-agent inbox</title><link rel="stylesheet" href="/app.css">
</head><body><main class="signed-out"><h1>durable-agent inbox</h1>
<p>Open the link <code>durable-agent ui</code> printed in its terminal: it signs this browser in.</p></main></body></html>
`;

/** The stylesheet. */
export const PAGE_CSS = `
:root { --bg: #f6f7f9; --card: #fff; --ink: #1d2330; --muted: #6b7280; --line: #e3e6eb; --accent: #2f5bea;
  --ok: #13795b; --warn: #b45309; --bad: #b42318; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); }
header.top { display: flex; align-items: center; gap: 18px; padding: 12px 24px; background: #111827; color: #fff; }
header.top .brand { font-weight: 650; letter-spacing: .2px; }
header.top nav a { color: #cbd5e1; text-decoration: none; margin-right: 14px; }
header.top nav a.active, header.top nav a:hover { color: #fff; }
header.top .who { margin-left: auto; color: #cbd5e1; font-size: 13px; }
main { max-width: 980px; margin: 0 auto; padding: 20px 24px 48px; }
h1 { font-size: 22px; margin: 4px 0 14px; }
h2 { font-size: 16px; margin: 22px 0 10px; }
.muted { color: var(--muted); }
.summary { color: var(--muted); margin-bottom: 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; margin-bottom: 12px;
  box-shadow: 0 1px 2px rgba(16,24,40,.04); }
.card .head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 8px; margin-bottom: 8px; }
.badge { font-size: 12px; font-weight: 600; border-radius: 999px; padding: 2px 9px; text-transform: uppercase; letter-spacing: .4px; }
.badge.approval { background: #fef3c7; color: var(--warn); }
.badge.elicitation { background: #e0e7ff; color: #3730a3; }
.badge.client-tool { background: #dcfce7; color: var(--ok); }
.card .title { font-weight: 600; }
.card .meta { margin-left: auto; color: var(--muted); font-size: 13px; }
.card .meta a { color: var(--accent); text-decoration: none; }
.card .question { margin: 4px 0 10px; }
pre.args { background: #f3f4f6; border-radius: 6px; padding: 8px 10px; margin: 6px 0 10px; font-size: 13px; overflow-x: auto;
  white-space: pre-wrap; word-break: break-word; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
button { font: inherit; border-radius: 7px; border: 1px solid var(--line); background: #fff; padding: 6px 14px; cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: var(--bad); }
button:disabled { opacity: .55; cursor: default; }
input[type=text], input[type=number], input[type=email], input[type=url], input[type=date], select, textarea {
  font: inherit; border: 1px solid var(--line); border-radius: 7px; padding: 6px 9px; min-width: 220px; }
textarea { width: 100%; min-height: 70px; }
form.schema { display: grid; gap: 8px; margin-bottom: 10px; }
form.schema label { display: grid; gap: 3px; font-size: 14px; }
form.schema label .hint { color: var(--muted); font-size: 12px; }
form.schema .check { display: flex; gap: 6px; align-items: center; }
.error { color: var(--bad); font-size: 14px; }
.empty { text-align: center; padding: 40px 0; color: var(--muted); }
.message { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; margin-bottom: 10px; }
.message.user { background: #eef2ff; border-color: #c7d2fe; }
.message .role { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .4px; margin-bottom: 4px; }
.message .text { white-space: pre-wrap; }
.tool { border-left: 3px solid var(--line); padding: 4px 10px; margin: 8px 0; font-size: 14px; }
.tool .name { font-weight: 600; }
.tool .state { color: var(--muted); margin-left: 6px; }
.tool[data-state="approval-requested"] { border-color: var(--warn); }
.tool[data-state="output-available"] { border-color: var(--ok); }
.tool[data-state="output-denied"], .tool[data-state="output-error"] { border-color: var(--bad); }
.status { display: inline-block; font-size: 13px; color: var(--muted); margin-top: 8px; }
.status:empty { display: none; }
form.schema input, form.schema select { max-width: 420px; }
form.chat { display: flex; gap: 8px; margin-top: 14px; }
form.chat input { flex: 1; }
.asked { margin: 2px 0 8px; }
.asked .label, .box-label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .4px; }
.box-label { margin-top: 6px; }
.waits { font-weight: 600; color: var(--warn); }
.waits:empty, .asked:empty, .health:empty { display: none; }
.health { background: #fef2f2; border: 1px solid #fecaca; color: var(--bad); border-radius: 8px; padding: 8px 12px; }
.not-yours { font-size: 13px; margin: 6px 0 0; }
form.chat.busy input { border-color: var(--accent); }
.chat-status { display: block; font-size: 13px; margin-top: 6px; }
.signed-out { max-width: 560px; margin: 80px auto; text-align: center; }
`;
