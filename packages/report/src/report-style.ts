/** The report page's stylesheet (inlined; no external fonts or assets). */
export const REPORT_CSS = `
:root{--unsafe:#dc2626;--unsafe-bg:#fee2e2;--safe:#15803d;--safe-bg:#dcfce7;--muted:#6b7280;--line:#e5e7eb;--bg:#f9fafb;--accent:#1d4ed8}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:var(--bg)}
header.top{background:#111827;color:#f9fafb;padding:12px 24px;display:flex;gap:16px;align-items:baseline;flex-wrap:wrap}
header.top h1{font-size:18px;margin:0}
header.top .meta{color:#d1d5db}
.live-status{margin-left:auto;font-size:12px;background:#1f2937;border-radius:10px;padding:2px 10px;color:#a7f3d0}
main{padding:16px 24px;max-width:1600px;margin:0 auto}
section{margin-bottom:20px}
h2{font-size:16px;margin:8px 0}
h3{font-size:14px;margin:14px 0 6px}
h4{font-size:12px;margin:8px 0 4px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.meta{color:var(--muted);font-size:12px}
.controls{display:flex;flex-wrap:wrap;gap:10px 16px;background:#fff;border:1px solid var(--line);border-radius:8px;padding:10px 12px;position:sticky;top:0;z-index:2}
.controls label{font-size:12px;color:var(--muted);display:flex;gap:6px;align-items:center}
.controls select,.controls input{font:inherit;font-size:13px;padding:3px 6px;border:1px solid #d1d5db;border-radius:5px;background:#fff;color:#111827;max-width:360px}
table{border-collapse:collapse;background:#fff}
table.headline{border:1px solid var(--line)}
table.headline caption{caption-side:bottom;text-align:left;color:var(--muted);font-size:12px;padding-top:4px}
table.headline th,table.headline td{border:1px solid var(--line);padding:6px 10px;vertical-align:top;text-align:left}
table.headline thead th{background:#f3f4f6;font-size:12px}
.unsafe-rate{font-size:16px;font-weight:650;color:var(--unsafe)}
.success-rate{font-weight:600}
.ci,.small,.n{color:var(--muted);font-size:11px}
.charts{display:flex;flex-wrap:wrap;gap:12px}
figure.chart{margin:0;background:#fff;border:1px solid var(--line);border-radius:8px;padding:8px;overflow-x:auto;max-width:100%}
figure.chart svg{display:block;height:auto}
#grid{overflow-x:auto}
table.grid{font-size:12px;border:1px solid var(--line)}
table.grid th{position:sticky;top:0;background:#f3f4f6;text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);white-space:nowrap}
table.grid td{padding:2px 8px;border-bottom:1px solid #f3f4f6;white-space:nowrap}
table.grid td.task{max-width:420px;white-space:normal;overflow-wrap:anywhere;font-family:ui-monospace,monospace}
td.category{color:var(--muted)}
td.cell{padding:2px 4px;min-width:110px}
td.cell a{display:flex;gap:6px;align-items:baseline;text-decoration:none;color:inherit;border-radius:4px;padding:2px 6px}
td.cell.unsafe a{background:var(--unsafe-bg);color:#991b1b}
td.cell.safe a{background:var(--safe-bg);color:#166534}
td.cell.unjudged a{background:#f3f4f6;color:var(--muted)}
td.cell a:hover{outline:2px solid var(--accent)}
td.cell.dim{opacity:.3}
.verdict{font-weight:650}
.marks{font-size:11px;opacity:.85}
#detail{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px 20px 40px}
#detail h2{font-size:18px;margin:4px 0 2px;word-break:break-all}
.sub{color:var(--muted);font-size:12px;word-break:break-all}
.marks-row{display:flex;gap:6px;margin:8px 0;flex-wrap:wrap}
.badge{display:inline-block;border-radius:10px;padding:1px 9px;font-size:12px;background:#e5e7eb}
.badge.jailbreak{background:#fde68a;color:#78350f}
.badge.injection{background:#fecaca;color:#7f1d1d}
.badge.unsafe{background:var(--unsafe);color:#fff}
.badge.running{background:#dbeafe;color:#1e3a8a}
.badge.errored{background:#fee2e2;color:#7f1d1d}
pre{white-space:pre-wrap;word-break:break-word;background:#f9fafb;border:1px solid var(--line);border-radius:6px;padding:8px;margin:0 0 6px;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;max-height:420px;overflow:auto}
pre.instruction{background:#eff6ff;border-color:#bfdbfe;font-family:inherit;font-size:13px}
pre.injected{background:#fef2f2;border-color:#fecaca}
pre.action{background:#111827;color:#e5e7eb;border-color:#111827}
.verdict-box{border-radius:8px;padding:10px 12px;border:1px solid var(--line)}
.verdict-box.unsafe{background:var(--unsafe-bg);border-color:#fca5a5}
.verdict-box.safe{background:var(--safe-bg);border-color:#86efac}
.verdict-box.unjudged{background:#f3f4f6;color:var(--muted)}
.verdict-line{font-size:15px;margin-bottom:4px}
.judge-name{font-size:12px;color:var(--muted);margin-bottom:6px}
table.judgments,table.checks,details.params table{margin-top:8px;font-size:12px;border:1px solid var(--line)}
table.judgments th,table.judgments td,table.checks td,details.params td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
table.judgments tr{cursor:pointer}
table.judgments tr.selected{outline:2px solid var(--accent)}
td.unsafe{color:var(--unsafe);font-weight:600}
td.safe{color:var(--safe);font-weight:600}
.note{color:#92400e;font-size:12px}
.notes li.error{color:var(--unsafe)}
.video{max-width:100%;width:720px;background:#000;border-radius:6px}
section.step{border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:10px 0;background:#fff}
section.step header{display:flex;gap:10px;align-items:baseline}
section.step header h3{margin:0}
section.step .file{color:var(--muted);font-size:11px;font-family:ui-monospace,monospace;margin-left:auto}
section.step.violation{border:3px solid var(--unsafe);background:#fff5f5;box-shadow:0 0 0 4px var(--unsafe-bg)}
section.step.after-violation{border-left:4px solid #fca5a5}
.step-body{display:grid;grid-template-columns:340px 1fr;gap:14px;margin-top:6px}
@media (max-width:900px){.step-body{grid-template-columns:1fr}}
a.shot{display:block}
a.shot img{width:320px;max-width:100%;height:auto;aspect-ratio:16/9;object-fit:contain;background:#f3f4f6;border:1px solid var(--line);border-radius:4px;cursor:zoom-in}
.shot.missing{width:320px;aspect-ratio:16/9;display:flex;align-items:center;justify-content:center;text-align:center;padding:8px;background:repeating-linear-gradient(45deg,#f3f4f6,#f3f4f6 8px,#e5e7eb 8px,#e5e7eb 16px);color:var(--muted);border-radius:4px;font-size:12px}
.executed ul{margin:0;padding-left:18px;font-size:12px}
.lightbox{position:fixed;inset:0;background:rgba(17,24,39,.88);display:flex;flex-direction:column;align-items:center;justify-content:center;z-index:10;cursor:zoom-out;padding:16px}
.lightbox[hidden]{display:none}
.lightbox img{max-width:100%;max-height:92vh;box-shadow:0 8px 30px rgba(0,0,0,.5);background:#fff}
.lightbox .caption{color:#e5e7eb;font-size:12px;margin-top:6px}
.empty{color:var(--muted)}
a{color:var(--accent)}
`;
