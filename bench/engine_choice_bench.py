"""Which second engine decides each obligation's queries, and how fast (chooses the engine order).

Emits every query of the chosen obligations as standard SMT-LIB text (``navproof prove
--emit-smt2``), gives each query to yices (``yices-smt2``) and cvc5 with a wall-clock stop per
query, and prints per obligation the queries decided by yices / cvc5 / either and the seconds of
the decided ones. With ``--write`` it rewrites ``proofs/engine_order.toml`` for the measured
obligations (the other entries stay as they are): the engine that decided every query in the
least time first, the other as the fallback, and ``query_engines`` for the queries the first
leaves undecided and the other decides (those are asked of the other first).

With ``--fallback-only`` cvc5 is asked only the queries yices leaves undecided (the order the
cross-check uses when yices comes first; much faster on large families); the entry then records
how many queries cvc5 was asked (``asked``). Every entry records ``either``: the queries decided
by at least one of the two.

Usage: python bench/engine_choice_bench.py [--limit-s 30] [--claims A2 S7 ...] [--fallback-only]
       [--rows FILE] [--write]
Claim: all (cross-check of every z3 obligation).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
TOML = ROOT / "proofs" / "engine_order.toml"

_CVC5 = """\
import sys, cvc5
tm = cvc5.TermManager(); s = cvc5.Solver(tm); s.setOption('tlimit-per', sys.argv[2])
p = cvc5.InputParser(s); p.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, sys.argv[1])
sm = p.getSymbolManager()
while True:
    c = p.nextCommand()
    if c.isNull():
        break
    c.invoke(s, sm)
    if str(c).startswith('(check-sat'):
        r = s.checkSat()
        print('sat' if r.isSat() else 'unsat' if r.isUnsat() else 'unknown')
"""


def _run(command: list[str], limit_s: float) -> tuple[str, float]:
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit_s + 5)
        lines = done.stdout.strip().splitlines()
        answer = lines[-1] if lines else "error: " + done.stderr.strip()[-200:]
    except subprocess.TimeoutExpired:
        answer = "killed"
    return answer, time.monotonic() - started


def measure(path: Path, limit_s: float, fallback_only: bool = False) -> dict[str, object]:
    """Answers of yices and cvc5 on one query file (z3's answer from its header); with
    ``fallback_only`` cvc5 only where yices did not decide the query."""
    lines = path.read_text().splitlines()
    z3_answer = lines[1].split(": ")[1]
    label = lines[0].split(": ", 1)[1]
    row: dict[str, object] = {"file": path.name, "z3": z3_answer, "query": label}
    commands = {
        "yices": [str(VENV_BIN / "yices-smt2"), f"--timeout={int(limit_s)}", str(path)],
        "cvc5": [sys.executable, "-c", _CVC5, str(path), str(int(limit_s * 1000))],
    }
    for engine, command in commands.items():
        if engine == "cvc5" and fallback_only and row["yices"] == z3_answer:
            row[engine], row[f"{engine}_s"] = "not asked", 0.0
            continue
        answer, seconds = _run(["nice", "-n", "10", *command], limit_s)
        row[engine], row[f"{engine}_s"] = answer, round(seconds, 3)
    return row


def _obligation(path: Path) -> str:
    first = path.read_text().splitlines()[0]
    found = re.match(r"; navproof obligation (\S+), query", first)
    assert found, f"{path}: no obligation header"
    return found.group(1)


def summarize(rows: list[dict[str, object]], files: list[Path]) -> dict[str, dict]:
    table: dict[str, dict] = {}
    for path, row in zip(files, rows, strict=True):
        entry = table.setdefault(_obligation(path), {
            "queries": 0, "either": 0,
            "yices": {"decided": 0, "seconds": 0.0, "asked": 0},
            "cvc5": {"decided": 0, "seconds": 0.0, "asked": 0},
            "rows": [],
        })
        entry["rows"].append(row)
        entry["queries"] += 1
        decided = False
        for engine in ("yices", "cvc5"):
            entry[engine]["asked"] += row[engine] != "not asked"
            if row[engine] == row["z3"]:
                entry[engine]["decided"] += 1
                entry[engine]["seconds"] += float(row[f"{engine}_s"])
                decided = True
            elif row[engine] in ("sat", "unsat"):
                raise SystemExit(f"DISAGREEMENT {row}")
        entry["either"] += decided
    return table


def _entry_text(oid: str, entry: dict) -> str:
    def key(engine: str) -> tuple[int, float]:
        return (-entry[engine]["decided"], entry[engine]["seconds"])

    order = sorted(("yices", "cvc5"), key=key)
    if entry["cvc5"]["asked"] < entry["queries"]:
        order = ["yices", "cvc5"]  # measured with --fallback-only: cvc5 is yices's fallback
    lines = [f'["{oid}"]', f"engines = {json.dumps(order)}", f"queries = {entry['queries']}",
             f"either = {entry['either']}"]
    for engine in ("yices", "cvc5"):
        e = entry[engine]
        asked = f", asked = {e['asked']}" if e["asked"] != entry["queries"] else ""
        lines.append(f"{engine} = {{ decided = {e['decided']}, seconds = {e['seconds']:.1f}"
                     f"{asked} }}")
    # A query the obligation's first engine leaves undecided, but the other decides: asked of
    # the other first (one label per query; a label used twice keeps the obligation's order
    # unless the other engine decided every query of that label).
    labels: dict[str, list[bool]] = {}
    for row in entry["rows"]:
        first_fails = row[order[0]] != row["z3"]
        other_decides = row[order[1]] == row["z3"]
        labels.setdefault(str(row["query"]), []).append(first_fails and other_decides)
    swapped = sorted(label for label, flags in labels.items() if any(flags) and all(
        row[order[1]] == row["z3"] for row in entry["rows"] if row["query"] == label))
    if swapped:
        other = json.dumps([order[1], order[0]])
        pairs = ", ".join(f"{json.dumps(label)} = {other}" for label in swapped)
        lines.append(f"query_engines = {{ {pairs} }}")
    return "\n".join(lines) + "\n"


def write_toml(table: dict[str, dict]) -> None:
    """Replace the measured obligations' entries of engine_order.toml, keeping the others."""
    text = TOML.read_text()
    for oid, entry in table.items():
        pattern = re.compile(rf'^\["{re.escape(oid)}"\]\n(?:(?!\[).*\n)*?(?=\n|\Z)', re.M)
        new = _entry_text(oid, entry)
        text, count = pattern.subn(lambda _m, new=new: new, text, count=1)
        if not count:
            text = text.rstrip("\n") + "\n\n" + new
    TOML.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit-s", type=float, default=30.0)
    parser.add_argument("--claims", nargs="*", default=[])
    parser.add_argument("--smt2-dir", type=Path, help="measure these files, emit nothing")
    parser.add_argument("--fallback-only", action="store_true",
                        help="ask cvc5 only the queries yices leaves undecided")
    parser.add_argument("--rows", type=Path, help="also write every measured row here (JSON)")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    folder = args.smt2_dir
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="navproof-smt2-"))
        claims = ["--claims", ",".join(args.claims)] if args.claims else []
        subprocess.run([str(VENV_BIN / "navproof"), "prove", "--no-cache", "--emit-smt2",
                        str(folder), *claims], check=False, stdout=subprocess.DEVNULL)
    files = sorted(folder.glob("*.smt2"))
    rows = []
    for number, path in enumerate(files, 1):
        rows.append(measure(path, args.limit_s, args.fallback_only))
        if number % 25 == 0 or number == len(files):
            print(f"measured {number} of {len(files)} queries", file=sys.stderr, flush=True)
    if args.rows:
        args.rows.write_text(json.dumps(rows, indent=1))
    table = summarize(rows, files)
    print(f"{'obligation':34} {'queries':>7} {'yices':>12} {'cvc5':>12} {'either':>6}")
    for oid, e in table.items():
        print(f"{oid:34} {e['queries']:7} {e['yices']['decided']:4} {e['yices']['seconds']:6.1f}s "
              f"{e['cvc5']['decided']:4} {e['cvc5']['seconds']:6.1f}s {e['either']:6}")
    for row in rows:
        if row["yices"] != row["z3"] and row["cvc5"] != row["z3"]:
            print("undecided:", row)
    if args.write:
        write_toml(table)


if __name__ == "__main__":
    main()
