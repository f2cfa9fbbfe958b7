"""CI reports of a proof run: JUnit XML and a Markdown table, from the ``navproof.prove/1`` record.

Both read only the JSON record (``navproof.proofs.report.to_json``), so they never import the
prover. JUnit: one test case per obligation (class name ``navproof.<claim>``), a ``failure``
with the counterexample text when a claim is not as expected, an ``error`` when the prover was
unknown or out of budget, and a case for the freshness of the generated formulas. Markdown: a
table for a pull-request comment. ``navproof audit`` adds its cases and tables through
:class:`ExtraCase` and ``sections``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_UNDECIDED = ("unknown",)
"""Statuses reported as JUnit errors (the prover did not decide) rather than failures."""


@dataclass(frozen=True)
class ExtraCase:
    """A JUnit test case that is not an obligation (a profile margin, an audit check)."""

    classname: str
    name: str
    ok: bool
    message: str
    detail: str = ""


def values_text(values: dict[str, Any] | None) -> str:
    """``name = value`` lines of a witness or counterexample (exact text as recorded)."""
    if not values:
        return ""
    return "\n".join(f"{name} = {v['text']}" for name, v in values.items())


def obligation_detail(ob: dict[str, Any]) -> str:
    """The evidence of one obligation as text: counterexample, replay, witness, message."""
    parts = []
    if ob.get("counterexample"):
        parts.append("counterexample:\n" + values_text(ob["counterexample"]))
        confirmed = "confirmed" if ob.get("replay_confirmed") else "NOT confirmed"
        parts.append(f"replay {confirmed}: {ob.get('replay_detail')}")
    if ob.get("witness"):
        parts.append("witness:\n" + values_text(ob["witness"]))
    for check in ob.get("checks") or []:
        parts.append(f"identity {'ok' if check.get('ok') else 'FAILS'}: "
                     f"{check.get('name', check)}")
    if ob.get("message"):
        parts.append(str(ob["message"]))
    return "\n".join(parts)


def _case(suite: ET.Element, classname: str, name: str, seconds: float) -> ET.Element:
    return ET.SubElement(suite, "testcase", classname=classname, name=name,
                         time=f"{seconds:.3f}")


def junit_xml(record: dict[str, Any], *, suite_name: str = "navproof prove",
              extra: Sequence[ExtraCase] = ()) -> str:
    """JUnit XML of a ``navproof.prove/1`` record (and extra cases), as text."""
    root = ET.Element("testsuites", name=suite_name)
    suite = ET.SubElement(root, "testsuite", name=suite_name)
    failures = errors = 0
    fresh = record["generated_formulas"]
    case = _case(suite, "navproof.generated", "generated formulas are fresh", 0.0)
    if not fresh["fresh"]:
        failures += 1
        ET.SubElement(case, "failure", message="generated formulas are stale",
                      type="stale").text = str(fresh["reason"])
    for ob in record["obligations"]:
        case = _case(suite, f"navproof.{ob['claim']}", ob["id"], float(ob["seconds"]))
        detail = obligation_detail(ob)
        summary = f"{ob['status']} (expected {ob['expected']}): {ob['title']}"
        if ob["ok"]:
            if detail:
                ET.SubElement(case, "system-out").text = f"{summary}\n{detail}"
        elif ob["status"] in _UNDECIDED:
            errors += 1
            ET.SubElement(case, "error", message=summary, type=ob["status"]).text = detail
        else:
            failures += 1
            ET.SubElement(case, "failure", message=summary, type=ob["status"]).text = detail
    for item in extra:
        case = _case(suite, item.classname, item.name, 0.0)
        if item.ok:
            ET.SubElement(case, "system-out").text = "\n".join(
                p for p in (item.message, item.detail) if p)
        else:
            failures += 1
            ET.SubElement(case, "failure", message=item.message, type="margin").text = (
                item.detail)
    tests = 1 + len(record["obligations"]) + len(extra)
    for element in (root, suite):
        element.set("tests", str(tests))
        element.set("failures", str(failures))
        element.set("errors", str(errors))
    suite.set("time", f"{float(record.get('wall_seconds', 0.0)):.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def cell(text: object) -> str:
    """One Markdown table cell: pipes escaped, line breaks as <br>."""
    return str(text).replace("|", "\\|").replace("\n", "<br>")


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(cell(h) for h in header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _short_evidence(ob: dict[str, Any]) -> str:
    if ob.get("counterexample"):
        values = ", ".join(f"{k} = {v['text']}" for k, v in list(ob["counterexample"].items())[:6])
        return f"counterexample: {values}"
    if ob.get("message") and not ob["ok"]:
        return str(ob["message"])
    return ""


def markdown_report(record: dict[str, Any], *, title: str | None = None,
                    sections: Sequence[str] = ()) -> str:
    """A Markdown report of a ``navproof.prove/1`` record: a heading, any ``sections`` (the
    audit's tables), the verdict line and the obligation table (times left out: the report is
    diffable)."""
    totals = record["totals"]
    profile = record["profile"]
    verdict = "all as expected" if totals["not_ok"] == 0 else f"{totals['not_ok']} NOT as expected"
    fresh = record["generated_formulas"]
    lines = [f"### {title or 'navproof prove'}", ""]
    for section in sections:
        lines += [section, ""]
    lines += [f"#### Obligations under profile `{profile['name']}`", "",
              f"**{verdict}** — {totals['obligations']} obligations, "
             + ", ".join(f"{n} {s}" for s, n in totals["by_status"].items())
             + ("" if fresh["fresh"] else "; **generated formulas STALE**"), ""]
    rows = []
    for ob in record["obligations"]:
        mark = "✅" if ob["ok"] else "❌"
        rows.append((mark, f"`{ob['id']}`", ob["claim"], ob["status"], ob["expected"],
                     ob["title"], _short_evidence(ob)))
    lines.append(table(("", "obligation", "claim", "status", "expected", "what", "evidence"),
                       rows))
    return "\n".join(lines) + "\n"


def write_text(path: Path, text: str) -> None:
    """Write a report file (UTF-8)."""
    path.write_text(text, encoding="utf-8")



def write_reports(record: dict[str, Any], *, junit: Path | None, markdown: Path | None) -> None:
    """Write the JUnit and/or Markdown report of a ``navproof prove`` record (None: skipped)."""
    if junit is not None:
        write_text(junit, junit_xml(record))
    if markdown is not None:
        write_text(markdown, markdown_report(record))
