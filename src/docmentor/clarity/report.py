"""The clarity report: one self-contained HTML page, and the score history.

The page has no external resources (no CDN, no fonts, no network): styles and a small
script are inline, and the results are embedded as JSON that the script renders — grade
badges, score gauges, dimension bars, the roadmap as a checklist, quick wins, and a table
of issues per document, each linking to its line. The history file is JSON Lines, one
line per document per run, so a CI job can keep it and the report can show the trend.
"""

from __future__ import annotations

import html
import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from docmentor.errors import UsageError, cannot_write

_CSS = """
:root { --fg:#1f2328; --muted:#59636e; --bg:#fff; --line:#d1d9e0; --ok:#1a7f37; --warn:#9a6700; --bad:#cf222e; }
* { box-sizing: border-box; }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg);
       margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; } h3 { font-size: 15px; margin: 16px 0 6px; }
.muted { color: var(--muted); } table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { border-bottom: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top; }
.badge { display: inline-block; min-width: 44px; text-align: center; font-weight: 700; color: #fff; border-radius: 6px;
         padding: 2px 8px; }
.g-Ap, .g-A { background: var(--ok); } .g-B { background: #4d8b31; } .g-C { background: var(--warn); }
.g-D, .g-F { background: var(--bad); }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 16px; margin: 16px 0; }
.row { display: flex; gap: 24px; align-items: center; flex-wrap: wrap; }
.bar { background: #eef1f4; border-radius: 4px; height: 10px; width: 220px; overflow: hidden; display: inline-block; }
.bar > span { display: block; height: 100%; background: var(--ok); }
.sev-critical { color: var(--bad); font-weight: 600; } .sev-warning { color: var(--warn); } .sev-info { color: var(--muted); }
ul.checklist { list-style: none; padding-left: 0; } ul.checklist li::before { content: "\\2610  "; }
code { background: #f6f8fa; padding: 1px 4px; border-radius: 4px; }
"""

_SCRIPT = r"""
(function () {
  const data = JSON.parse(document.getElementById("clarity-data").textContent);
  const esc = (s) => String(s == null ? "" : s).replace(/[&<>"']/g, (c) => (
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  // grades come from a rubric file: only [A-Za-z0-9-] may reach a class attribute
  const gradeClass = (g) => "g-" + String(g).replace("+", "p").replace(/[^A-Za-z0-9-]/g, "");
  function gauge(score) {
    const r = 36, c = 2 * Math.PI * r, frac = Math.max(0, Math.min(1, score / 10));
    const color = score >= 8 ? "#1a7f37" : score >= 6 ? "#4d8b31" : score >= 4 ? "#9a6700" : "#cf222e";
    return `<svg class="gauge" width="96" height="96" viewBox="0 0 96 96" role="img" aria-label="score ${score}">
      <circle cx="48" cy="48" r="${r}" fill="none" stroke="#eef1f4" stroke-width="10"/>
      <circle cx="48" cy="48" r="${r}" fill="none" stroke="${color}" stroke-width="10"
        stroke-dasharray="${(c * frac).toFixed(2)} ${c.toFixed(2)}" transform="rotate(-90 48 48)"/>
      <text x="48" y="54" text-anchor="middle" font-size="20" font-weight="700">${score.toFixed(1)}</text></svg>`;
  }
  function trend(doc) {
    const t = doc.trend || [];
    if (t.length < 2) return "";
    const pts = t.map((e) => Number(e.score).toFixed(1)).join(" → ");
    return `<div class="muted trend">Trend: <span data-trend>${esc(pts)}</span></div>`;
  }
  const out = [];
  const s = data.summary;
  out.push(`<div class="card row" id="summary"><div>${gauge(s.average_score)}</div><div>
    <div><b>Documents:</b> <span data-k="documents">${s.documents}</span></div>
    <div><b>Average score:</b> <span data-k="average_score">${s.average_score.toFixed(1)}</span>
      <span class="badge ${gradeClass(s.average_grade)}">${esc(s.average_grade)}</span></div>
    <div><b>Issues:</b> <span data-k="critical">${s.critical_issues}</span> critical,
      <span data-k="warning">${s.warning_issues}</span> warnings, <span data-k="info">${s.info_issues}</span> info</div>
    <div class="muted">Scoring ${esc(s.scoring_version)} · rubric ${esc(s.rubric_hash)} · target ${s.target_score}</div>
  </div></div>`);
  out.push(`<h2>Documents</h2><table id="doc-table"><thead><tr><th>Document</th><th>Score</th><th>Grade</th>
    <th>Critical</th><th>Warnings</th><th>Info</th></tr></thead><tbody>`);
  data.documents.forEach((d, i) => {
    const cs = d.clarity_score, sm = d.summary;
    out.push(`<tr><td><a href="#doc-${i}">${esc(d.path)}</a></td><td data-score="${i}">${cs.overall_score.toFixed(1)}</td>
      <td><span class="badge ${gradeClass(cs.grade)}">${esc(cs.grade)}</span></td>
      <td>${sm.critical_clarity_issues}</td><td>${sm.warning_clarity_issues}</td><td>${sm.info_clarity_issues}</td></tr>`);
  });
  out.push(`</tbody></table>`);
  data.documents.forEach((d, i) => {
    const cs = d.clarity_score, rm = d.improvement_roadmap, ex = d.score_explanation;
    out.push(`<div class="card" id="doc-${i}"><div class="row"><div>${gauge(cs.overall_score)}</div><div>
      <h3>${esc(d.path)} <span class="badge ${gradeClass(cs.grade)}">${esc(cs.grade)}</span></h3>
      <div>${esc(cs.rubric_tier)} — ${esc(cs.rubric_description)}</div>
      <div class="muted"><code>${esc(ex.calculation || "")}</code></div>${trend(d)}</div></div>`);
    out.push(`<h3>Dimensions</h3><table class="dims">`);
    Object.entries(d.dimension_scores || {}).forEach(([name, v]) => {
      out.push(`<tr><td>${esc(name)}</td><td><span class="bar"><span style="width:${v * 10}%"></span></span></td>
        <td data-dim="${esc(name)}">${Number(v).toFixed(1)}</td></tr>`);
    });
    out.push(`</table>`);
    if (rm.priority_fixes && rm.priority_fixes.length) {
      out.push(`<h3>Roadmap to ${Number(rm.target_score).toFixed(1)} (estimated ${Number(rm.estimated_new_score).toFixed(1)}, ${esc(rm.estimated_total_effort)})</h3>
        <ul class="checklist">`);
      rm.priority_fixes.forEach((f) => out.push(`<li><span class="sev-${esc(f.severity)}">${esc(f.severity)}</span>
        ${esc(f.message)} — <i>${esc(f.location)}</i>, impact ${esc(f.impact)}, effort ${esc(f.estimated_effort)}</li>`));
      out.push(`</ul>`);
    }
    if (rm.quick_wins && rm.quick_wins.length) {
      out.push(`<h3>Quick wins</h3><ul>` + rm.quick_wins.map((q) => `<li>${esc(q)}</li>`).join("") + `</ul>`);
    }
    if (d.issues.length) {
      out.push(`<h3>Issues</h3><table class="issues"><thead><tr><th>Line</th><th>Severity</th><th>Type</th>
        <th>Message</th><th>Fix</th></tr></thead><tbody>`);
      d.issues.forEach((it) => {
        // a file: URL opens the file (a browser has no line anchor in it); a web page's #L
        const href = !d.url ? `#doc-${i}` : d.url.startsWith("file:") ? d.url : `${d.url}#L${it.line}`;
        out.push(`<tr><td><a href="${esc(href)}">${esc(d.path)}:${it.line}</a></td>
          <td class="sev-${esc(it.severity)}">${esc(it.severity)}</td><td>${esc(it.type)}</td>
          <td>${esc(it.message)}</td><td>${esc(it.suggested_fix)}</td></tr>`);
      });
      out.push(`</tbody></table>`);
    }
    out.push(`</div>`);
  });
  document.getElementById("report").innerHTML = out.join("\n");
  document.body.setAttribute("data-rendered", "yes");
})();
"""


def render_html(result: dict[str, Any], *, title: str = "Documentation clarity report") -> str:
    """The whole report as one HTML page (the results embedded as JSON and rendered inline)."""
    # Every "<" escaped: "</script>" and "<!--<script>" in a quoted line must not end or swallow the element.
    data = json.dumps(result, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{html.escape(title)}</title>'
        f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"
        f'<div class="muted">Generated {html.escape(str(result.get("generated_at", "")))}</div>'
        "<noscript>This report needs JavaScript to render; the raw results are in the page source.</noscript>"
        '<div id="report"></div>'
        f'<script type="application/json" id="clarity-data">{data}</script>'
        f"<script>{_SCRIPT}</script></body></html>\n"
    )


def write_html(result: dict[str, Any], path: Path) -> None:
    try:
        path.write_text(render_html(result), encoding="utf-8")
    except OSError as exc:
        raise cannot_write(path, exc) from None


def git_commit(folder: Path) -> str | None:
    """The current commit of the work tree ``folder`` is in, if any."""
    try:
        out = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def read_history(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Earlier runs per document path, oldest first; unreadable lines are skipped."""
    if not path.exists():
        return {}
    out: dict[str, list[dict[str, Any]]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:  # not a history docmentor wrote: appending would mix in JSON lines
        raise UsageError(
            f"{path} is not a score history (not UTF-8 text)", hint="give a new file or one --history wrote"
        ) from None
    for line in lines:
        try:
            entry = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            out.setdefault(entry["path"], []).append(entry)
    return out


def append_history(
    path: Path, documents: list[dict[str, Any]], *, commit: str | None, now: datetime | None = None
) -> None:
    """One JSON line per document: date, commit, score, grade, issue counts, rubric hash."""
    stamp = (now or datetime.now(UTC)).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    lines = []
    for d in documents:
        cs, sm = d["clarity_score"], d["summary"]
        lines.append(
            json.dumps(
                {
                    "date": stamp,
                    "commit": commit,
                    "path": d["path"],
                    "url": d.get("url") or None,  # the document itself: what its trend is keyed by
                    "score": cs["overall_score"],
                    "grade": cs["grade"],
                    "critical": sm["critical_clarity_issues"],
                    "warning": sm["warning_clarity_issues"],
                    "info": sm["info_clarity_issues"],
                    "rubric_hash": cs.get("rubric_hash"),
                },
                sort_keys=True,
            )
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.write("".join(line + "\n" for line in lines))
    except OSError as exc:
        raise cannot_write(path, exc) from None
