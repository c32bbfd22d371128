/** The app's one stylesheet (served as /static/app.css; the content security policy allows no inline style). */
export const stylesheet = `
:root { --ink: #1b1f24; --muted: #4a5560; --line: #d0d7de; --accent: #0b5cad; --danger: #a4161a; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--ink); background: #fff; }
a { color: var(--accent); }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; }
.top { display: flex; gap: 16px; align-items: center; padding: 8px 24px; background: var(--bg); border-bottom: 1px solid var(--line); }
.top .business { font-weight: 600; }
.top .who { margin-left: auto; color: var(--muted); }
.badge { background: #fff3bf; color: #5c4400; border-radius: 4px; padding: 0 6px; font-size: 14px; }
nav ul { display: flex; flex-wrap: wrap; gap: 4px 20px; list-style: none; margin: 0; padding: 8px 24px; border-bottom: 1px solid var(--line); }
nav a[aria-current="page"] { font-weight: 700; color: var(--ink); }
main { padding: 16px 24px; max-width: 1100px; }
body.public main { max-width: 420px; margin: 48px auto; }
table { border-collapse: collapse; width: 100%; margin: 16px 0; }
caption { text-align: left; color: var(--muted); }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
td.amount { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.field { margin: 12px 0; display: flex; flex-direction: column; gap: 4px; }
.filters { display: flex; gap: 16px; align-items: flex-end; flex-wrap: wrap; }
input, select { font: inherit; padding: 6px 8px; border: 1px solid #6e7781; border-radius: 4px; }
button { font: inherit; padding: 6px 14px; border: 0; border-radius: 4px; background: var(--accent); color: #fff; cursor: pointer; }
button.danger { background: var(--danger); }
button.link { background: none; color: var(--accent); padding: 0; text-decoration: underline; }
form.inline { display: inline; }
.alert { padding: 8px 12px; border-radius: 4px; }
.alert.error { background: #ffebe9; color: #82071e; }
.alert.notice { background: #dafbe1; color: #044f1e; }
.field-error { color: #82071e; margin: 0; }
.details { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 8px 24px; }
.details dt, .cards dt { color: var(--muted); }
.details dd, .cards dd { margin: 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 16px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 12px; }
.new-key { border: 2px solid var(--accent); border-radius: 6px; padding: 12px 16px; margin: 16px 0; }
code.secret { font-size: 15px; word-break: break-all; background: var(--bg); padding: 4px 6px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.timeline { padding-left: 20px; }
.actions { display: flex; gap: 8px; }
.tabs ul { display: flex; gap: 4px 20px; list-style: none; margin: 0 0 8px; padding: 0 0 8px; border-bottom: 1px solid var(--line); }
.tabs a[aria-current="page"] { font-weight: 700; color: var(--ink); }
.hint { color: var(--muted); margin: 0; font-size: 14px; }
img.qr { display: block; border: 1px solid var(--line); image-rendering: pixelated; }
ul.codes { columns: 2; font-size: 17px; }
fieldset { border: 1px solid var(--line); border-radius: 4px; margin: 12px 0; }
.choice { display: block; margin: 2px 0; }
.delivery { border-top: 1px solid var(--line); margin-top: 16px; }
pre.answer { white-space: pre-wrap; word-break: break-all; background: var(--bg); padding: 6px 8px; margin: 4px 0; max-height: 12em; overflow: auto; }
`;
