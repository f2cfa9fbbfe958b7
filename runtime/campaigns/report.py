"""Campaign reports: the JSON summary, a JUnit XML summary for CI and the picture of the margin
distribution (matplotlib, the ``navproof[plot]`` extra)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr


def write_json(path: str | Path, summary: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


def write_junit(path: str | Path, summary: dict[str, Any]) -> None:
    """One test suite: a test case "no lying label" (failed when any run lied) and one per
    run that ended in an error."""
    name = summary.get("campaign", "campaign")
    cases = []
    lying = summary["lying_labels"]
    body = ""
    if lying:
        shrunk = "; ".join(c["path"] for c in summary.get("counterexamples", []))
        message = f"{lying} lying labels in runs {summary['lying_runs'][:20]}"
        body = f"<failure message={quoteattr(message)}>{escape(shrunk)}</failure>"
    cases.append(f'<testcase classname={quoteattr(name)} name="no lying label" '
                 f'time="{summary.get("seconds", 0.0):.3f}">{body}</testcase>')
    for run in summary.get("error_runs", []):
        cases.append(f'<testcase classname={quoteattr(name)} name="run {run["run"]}">'
                     f'<error message={quoteattr(run["error"])}/></testcase>')
    failures = 1 if lying else 0
    xml = (f'<?xml version="1.0" encoding="utf-8"?>\n'
           f'<testsuite name={quoteattr("navproof campaign " + name)} tests="{len(cases)}" '
           f'failures="{failures}" errors="{len(cases) - 1}">\n  '
           + "\n  ".join(cases) + "\n</testsuite>\n")
    Path(path).write_text(xml, encoding="utf-8")


def plot_margins(path: str | Path, results: dict[int, dict[str, Any]], title: str) -> None:
    """Histogram of each run's smallest margin (m) over its agent-steps labelled SAFE, with
    the wall and agent clearances beside it; lying runs are below zero."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in (("safe_margin_m", "smallest margin of a safe agent-step"),
                       ("wall_m", "smallest wall clearance"),
                       ("agent_m", "smallest agent clearance")):
        xs = [r["min"][key] for r in results.values()
              if not r["error"] and r["min"][key] is not None]
        if xs:
            ax.hist(xs, bins=40, alpha=0.5, label=f"{label} ({len(xs)} runs)")
    ax.axvline(0.0, color="k", linewidth=1)
    ax.set_xlabel("margin per run [m]")
    ax.set_ylabel("runs")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
