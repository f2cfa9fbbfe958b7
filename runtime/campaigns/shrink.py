"""Shrinking a lying run to a small scenario file that still lies (as Hypothesis shrinks):
fewer steps (up to the first lie), fewer agents (agents removed, rings and blocks made
smaller), fewer obstacles and supports, simpler numbers (rounded), each change kept only when
the truth check still finds a lying label. The file is written beside the results with
``[expect] arrived = 0`` so that ``navproof simulate FILE --assert`` fails only on the lie.
"""

from __future__ import annotations

import copy
import math
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from navproof.campaigns.worker import simulate_text

MAX_EVALUATIONS = 150
"""Candidate scenarios tried per shrink (each is one short run)."""


def lies(doc: dict[str, Any], profile_text: str | None, steps: int) -> int | None:
    """The step (0-based) of the first lying label of the scenario document, or None."""
    import tomli_w

    from navproof.core.errors import InvalidInput
    from navproof.specs.errors import SpecError

    try:
        out = simulate_text(tomli_w.dumps(doc), profile_text, steps, stop_at_first_lie=True)
    except (InvalidInput, SpecError):
        return None
    return out["lies"][0]["step"] if out["lying"] else None


def agent_count(doc: dict[str, Any]) -> int:
    n = len(doc.get("agents", []))
    n += sum(int(r.get("count", 0)) for r in doc.get("rings", []))
    n += sum(int(b.get("rows", 0)) * int(b.get("cols", 0)) for b in doc.get("blocks", []))
    return n


def _smaller(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Candidate documents one simplification away from ``doc``, the boldest first."""
    for table in ("agents", "rings", "blocks", "obstacles", "supports"):
        for i in range(len(doc.get(table, []))):
            d = copy.deepcopy(doc)
            del d[table][i]
            if not d[table]:
                del d[table]
            yield d
    for i, ring in enumerate(doc.get("rings", [])):
        count = int(ring.get("count", 1))
        for smaller in sorted({1, 2, count // 2, count - 1}):
            if 1 <= smaller < count:
                d = copy.deepcopy(doc)
                d["rings"][i]["count"] = smaller
                yield d
    for i, block in enumerate(doc.get("blocks", [])):
        for name in ("rows", "cols"):
            n = int(block.get(name, 1))
            for smaller in sorted({1, n // 2, n - 1}):
                if 1 <= smaller < n:
                    d = copy.deepcopy(doc)
                    d["blocks"][i][name] = smaller
                    yield d
    for path, value in list(_numbers(doc, ())):
        for simple in _simpler(value):
            d = copy.deepcopy(doc)
            _put(d, path, simple)
            yield d


def _numbers(node: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], float]]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k not in ("steps", "count", "rows", "cols"):
                yield from _numbers(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _numbers(v, (*path, i))
    elif isinstance(node, float) and math.isfinite(node):
        yield path, node


def _simpler(x: float) -> list[float]:
    out = []
    for digits in (0, 1, 2):
        y = round(x, digits)
        if y != x and y not in out:
            out.append(float(y))
    return out


def _put(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    for p in path[:-1]:
        doc = doc[p]
    doc[path[-1]] = value


def shrink(scenario_text: str, profile_text: str | None, steps: int, *,
           budget: int = MAX_EVALUATIONS,
           check: Callable[[dict[str, Any], str | None, int], int | None] = lies
           ) -> tuple[dict[str, Any], int] | None:
    """The smallest document found that still lies and its step count, or None when the
    scenario does not lie when rerun here."""
    doc = tomllib.loads(scenario_text)
    first = check(doc, profile_text, steps)
    if first is None:
        return None
    steps = first + 1
    tried = 1
    improved = True
    while improved and tried < budget:
        improved = False
        for candidate in _smaller(doc):
            if tried >= budget:
                break
            tried += 1
            step = check(candidate, profile_text, steps)
            if step is not None:
                doc, steps, improved = candidate, step + 1, True
                break
    return doc, steps


def write_counterexample(doc: dict[str, Any], steps: int, profile_text: str | None,
                         folder: Path, name: str, note: str) -> Path:
    """Write the shrunk scenario (and its profile, if not the embedded one) into ``folder``."""
    import tomli_w

    doc = copy.deepcopy(doc)
    doc.setdefault("scenario", {})["steps"] = steps
    doc["scenario"]["name"] = name
    doc["scenario"]["description"] = note
    doc["expect"] = {"arrived": 0}
    if profile_text is not None:
        profile_file = folder / f"{name}.profile.toml"
        profile_file.write_text(profile_text, encoding="utf-8")
        doc["scenario"]["profile"] = profile_file.name
    else:
        doc["scenario"].pop("profile", None)
    path = folder / f"{name}.toml"
    path.write_text(f"# {note}\n# reproduce: navproof simulate {path.name} --assert\n"
                    + tomli_w.dumps(doc), encoding="utf-8")
    return path


def reproduces_with_assert(path: Path) -> bool:
    """True when ``navproof simulate FILE --assert`` fails on the file, run here: the same
    loading, run and verdict (an obligation violated in assertion mode, or an ``[expect]``
    missed), through the scenario API rather than the command line (the command line imports
    this package)."""
    from navproof.core.errors import ObligationViolation
    from navproof.scenario import check_expectations, load_world_scenario, run_scenario

    scenario = load_world_scenario(path, assertions=True)
    try:
        summary = run_scenario(scenario)
    except ObligationViolation:
        return True
    finally:
        scenario.world.close()
    return bool(check_expectations(scenario.expect, summary))
