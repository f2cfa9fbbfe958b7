"""Campaign files (TOML): a base scenario, the parameters to vary by key path, their
distributions, the run count, steps per run, seed and search.

Schema::

    [campaign]
    name = "conveyor-sweep"
    base = "corridor_conveyor.toml"   # a scenario file, relative to this file
    runs = 1000
    steps = 60                        # steps per run
    seed = 7
    search = "random"                 # or "cross-entropy"
    batch = 50                        # cross-entropy: runs per generation
    elite_fraction = 0.2              # cross-entropy: share of the batch that steers the next
    profile = "candidate.toml"        # optional: a profile for every run (else the base's)

    [[vary]]
    key = "supports[0].velocity_mps[0]"   # a key path in the scenario schema
    uniform = [-0.5, 0.5]                 # or choice = [...], or normal = {mean=, std=}
                                          # (+ optional min, max: the truncation range)

Key paths: ``table.key``, ``list[i].key``, ``list[*].key`` (one draw written into every
element), a trailing ``[i]`` picks a component of a pair (``velocity_mps[0]``), and
``profile.NAME`` varies the default of the profile parameter NAME (within its range). Numbers
whose base value is a whole number (``rings[0].count``) are drawn as whole numbers.

Where a key has a profile range (``max_speed_mps`` is the range of ``max_speed_mps``,
``time_step_s`` that of ``step_s``, ...), a uniform or choice outside it is an error of the spec
and a normal is truncated to it. Every scenario of the campaign is validated as a scenario file
(:func:`navproof.scenario.load_scenario`) before anything runs. Errors raise
:class:`CampaignError` naming the file, the key, the value and the rule.
"""

from __future__ import annotations

import copy
import hashlib
import math
import re
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput

SEARCHES = ("random", "cross-entropy")
CAMPAIGN_KEYS = ("name", "base", "runs", "steps", "seed", "search", "batch", "elite_fraction",
                 "profile")
VARY_KEYS = ("key", "uniform", "choice", "normal")
MAX_RUNS = 10_000_000
PROFILE_RANGE_OF = {
    "max_speed_mps": "max_speed_mps",
    "radius_m": "agent_radius_m",
    "max_accel_mps2": "brake_budget_mps2",
    "stop_range_m": "arrive_stop_range_m",
    "neighbor_dist_m": "neighbor_dist_m",
    "max_neighbors": "max_neighbors",
    "time_horizon_s": "orca_time_horizon_s",
    "time_horizon_obst_s": "obstacle_time_horizon_s",
    "time_step_s": "step_s",
}
"""The profile parameter whose range bounds a scenario key (by its last name)."""
SYMMETRIC_RANGE_OF = {("supports", "velocity_mps"): "support_speed_mps"}
"""Vector keys whose every component lies in [-max, max] of a profile parameter."""
_STEP = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[(?:\d+|\*)\])*)$")


class CampaignError(InvalidInput):
    """A campaign file is malformed: names the file, the key, the value and the rule."""

    def __init__(self, file: str, key: str, value: object, rule: str) -> None:
        self.file = file
        self.key = key
        super().__init__(f"{file}: {key}", value, rule)


@dataclass(frozen=True)
class Vary:
    """One varied parameter: its key path, the distribution and its bounds.

    ``kind`` is "uniform" (``low``, ``high``), "choice" (``options``) or "normal" (``mean``,
    ``std`` truncated to [``low``, ``high``]); ``integer`` draws whole numbers.
    """

    key: str
    kind: str
    low: float = -math.inf
    high: float = math.inf
    mean: float = 0.0
    std: float = 1.0
    options: tuple[Any, ...] = ()
    integer: bool = False

    def draw(self, rng: np.random.Generator, mean: float | None = None,
             std: float | None = None, probs: np.ndarray | None = None) -> Any:
        """One value; ``mean``/``std``/``probs`` replace the spec's (the adaptive search)."""
        if self.kind == "choice":
            i = int(rng.choice(len(self.options), p=probs))
            return self.options[i]
        if self.kind == "uniform" and mean is None:
            x = float(rng.uniform(self.low, self.high))
        else:
            mu = self.mean if mean is None else mean
            sigma = self.std if std is None else std
            x = truncated_normal(rng, mu, sigma, self.low, self.high)
        if self.integer:
            return int(min(max(round(x), math.ceil(self.low)), math.floor(self.high)))
        return x


def truncated_normal(rng: np.random.Generator, mean: float, std: float, low: float,
                     high: float) -> float:
    """A normal draw truncated to [low, high] (rejection, then clipping after 100 tries)."""
    for _ in range(100):
        x = float(rng.normal(mean, std))
        if low <= x <= high:
            return x
    return float(min(max(mean, low), high))


@dataclass
class CampaignSpec:
    """A loaded, validated campaign file."""

    file: str
    name: str
    base_file: str
    base_data: dict[str, Any]
    runs: int
    steps: int
    seed: int
    search: str
    batch: int
    elite_fraction: float
    vary: list[Vary]
    profile_file: str | None
    profile_text: str | None
    digest: str = ""
    texts: dict[str, str] = field(default_factory=dict)

    def document(self, values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The scenario document (TOML data) of one run, the base with ``values`` written in,
        and the profile defaults it varies."""
        doc = copy.deepcopy(self.base_data)
        doc.setdefault("scenario", {})["steps"] = self.steps
        profile_values = {}
        for key, value in values.items():
            if key.startswith("profile."):
                profile_values[key.split(".", 1)[1]] = value
            else:
                set_path(doc, key, value)
        doc["scenario"].pop("profile", None)
        return doc, profile_values


def parse_path(key: str) -> list[str | int]:
    """``supports[0].velocity_mps[1]`` -> ["supports", 0, "velocity_mps", 1] (``*`` kept)."""
    parts: list[str | int] = []
    for word in key.split("."):
        m = _STEP.match(word)
        if not m:
            raise ValueError(f"not a key path step: {word!r}")
        parts.append(m.group(1))
        for index in re.findall(r"\[(\d+|\*)\]", m.group(2)):
            parts.append("*" if index == "*" else int(index))
    return parts


def set_path(doc: Any, key: str, value: Any) -> None:
    """Write ``value`` at key path ``key`` of ``doc`` (a list element or table must exist; the
    last table key may be new). Raises KeyError naming what is missing."""
    parts = parse_path(key)

    def walk(node: Any, rest: list[str | int], where: str) -> None:
        head, tail = rest[0], rest[1:]
        if head == "*":
            if not isinstance(node, list) or not node:
                raise KeyError(f"{where or '<top>'} is not a non-empty array")
            for i in range(len(node)):
                walk_into(node, i, tail, f"{where}[{i}]")
            return
        if isinstance(head, int):
            if not isinstance(node, list) or head >= len(node):
                raise KeyError(f"{where}[{head}] does not exist in the base scenario")
            walk_into(node, head, tail, f"{where}[{head}]")
            return
        if not isinstance(node, dict):
            raise KeyError(f"{where} is not a table")
        if not tail:
            node[head] = value
            return
        if head not in node:
            if isinstance(tail[0], str):
                node[head] = {}
            else:
                raise KeyError(f"{where + '.' if where else ''}{head} does not exist in the "
                               f"base scenario")
        walk_into(node, head, tail, f"{where + '.' if where else ''}{head}")

    def walk_into(node: Any, index: Any, tail: list[str | int], where: str) -> None:
        if not tail:
            node[index] = value
        else:
            walk(node[index], tail, where)

    walk(doc, parts, "")


def get_path(doc: Any, key: str) -> Any:
    """The base value at ``key`` (the first element for ``[*]``), or None where absent."""
    node = doc
    for part in parse_path(key):
        part = 0 if part == "*" else part
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def profile_range(key: str, profile: Any) -> tuple[float, float, str] | None:
    """The profile range (low, high, parameter name) that bounds ``key``, if any."""
    parts = [p for p in parse_path(key) if isinstance(p, str) and p != "*"]
    if parts[0] == "profile" and len(parts) == 2:
        name = parts[1]
        if name not in profile.parameters:
            return None
        p = profile[name]
        return float(p.min), float(p.max), name
    mapped = PROFILE_RANGE_OF.get(parts[-1])
    if mapped is not None:
        name = mapped
        p = profile[name]
        return float(p.min), float(p.max), name
    sym = SYMMETRIC_RANGE_OF.get((parts[0], parts[-1]))
    if sym is not None:
        top = float(profile[sym].max)
        return -top, top, sym
    return None


def _number(r: Any, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(float(value)):
        raise r(key, value, "must be a finite number")
    return float(value)


def load_spec(path: str | Path, *, profile_path: str | Path | None = None,
              runs: int | None = None) -> CampaignSpec:
    """Read and validate a campaign file (and its base scenario and profile). Raises
    :class:`CampaignError` naming the key; nothing runs from a bad file."""
    from navproof.specs.errors import SpecError
    from navproof.specs.profile import load_profile

    path = Path(path)
    file = str(path)

    def fail(key: str, value: object, rule: str) -> CampaignError:
        return CampaignError(file, key, value, rule)

    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise fail("<file>", file, f"cannot be read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise fail("<file>", file, f"is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"campaign", "vary"})
    if unknown:
        raise fail(unknown[0], data[unknown[0]], "unknown table; allowed: ['campaign', 'vary']")
    meta = data.get("campaign")
    if not isinstance(meta, dict):
        raise fail("campaign", meta, "a [campaign] table is required")
    unknown = sorted(set(meta) - set(CAMPAIGN_KEYS))
    if unknown:
        raise fail(f"campaign.{unknown[0]}", meta[unknown[0]],
                   f"unknown key; allowed: {list(CAMPAIGN_KEYS)}")

    def whole(key: str, default: int | None, low: int, high: int) -> int:
        value = meta.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise fail(f"campaign.{key}", value, f"must be a whole number in [{low}, {high}]")
        return int(value)

    if "base" not in meta or not isinstance(meta["base"], str):
        raise fail("campaign.base", meta.get("base"), "must name the base scenario file")
    base_file = path.parent / meta["base"]
    n_runs = whole("runs", None, 1, MAX_RUNS) if runs is None else int(runs)
    if n_runs < 1:
        raise fail("--runs", n_runs, "must be >= 1")
    steps = whole("steps", None, 1, 1_000_000)
    seed = whole("seed", 0, 0, 2**63 - 1)
    search = meta.get("search", "random")
    if search not in SEARCHES:
        raise fail("campaign.search", search, f"must be one of {list(SEARCHES)}")
    batch = whole("batch", 50, 2, 1_000_000)
    elite = meta.get("elite_fraction", 0.2)
    if isinstance(elite, bool) or not isinstance(elite, (int, float)) or not 0 < elite < 1:
        raise fail("campaign.elite_fraction", elite, "must be a number in (0, 1)")
    try:
        base_text = base_file.read_text(encoding="utf-8")
        base_data = tomllib.loads(base_text)
    except (OSError, UnicodeDecodeError) as exc:
        raise fail("campaign.base", str(base_file), f"cannot be read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise fail("campaign.base", str(base_file), f"is not valid TOML: {exc}") from None
    # the profile of every run: --profile, else the campaign's, else the base scenario's
    profile_file: Path | None = None
    if profile_path is not None:
        profile_file = Path(profile_path)
    elif "profile" in meta:
        profile_file = path.parent / str(meta["profile"])
    elif isinstance(base_data.get("scenario"), dict) and "profile" in base_data["scenario"]:
        profile_file = base_file.parent / str(base_data["scenario"]["profile"])
    try:
        profile = load_profile(profile_file)
    except SpecError as exc:
        raise fail("campaign.profile" if profile_path is None else "--profile",
                   str(profile_file), str(exc)) from None
    profile_text = profile_file.read_text(encoding="utf-8") if profile_file else None
    vary = _vary(fail, data.get("vary", []), base_data, profile)
    spec = CampaignSpec(file, str(meta.get("name", path.stem)), str(base_file), base_data,
                        n_runs, steps, seed, search, batch, float(elite), vary,
                        None if profile_file is None else str(profile_file), profile_text)
    spec.texts = {"campaign": text, "base": base_text, "profile": profile_text or "",
                  "runs": str(n_runs)}
    spec.digest = hashlib.sha256(
        "\0".join(f"{k}={v}" for k, v in sorted(spec.texts.items())).encode()).hexdigest()
    return spec


def _vary(fail: Any, raw: object, base: dict[str, Any], profile: Any) -> list[Vary]:
    if not isinstance(raw, list) or not all(isinstance(v, dict) for v in raw):
        raise fail("vary", raw, "must be an array of tables ([[vary]])")
    out: list[Vary] = []
    seen: set[str] = set()
    for i, spec in enumerate(raw):
        where = f"vary[{i}]"
        unknown = sorted(set(spec) - set(VARY_KEYS) - {"min", "max"})
        if unknown:
            raise fail(f"{where}.{unknown[0]}", spec[unknown[0]],
                       f"unknown key; allowed: {list(VARY_KEYS) + ['min', 'max']}")
        key = spec.get("key")
        if not isinstance(key, str):
            raise fail(f"{where}.key", key, "must be a key path such as 'agents[0].radius_m'")
        try:
            parts = parse_path(key)
        except ValueError as exc:
            raise fail(f"{where}.key", key, str(exc)) from None
        if key in seen:
            raise fail(f"{where}.key", key, "is varied twice")
        seen.add(key)
        bounds = profile_range(key, profile)
        if parts[0] == "profile":
            if len(parts) != 2 or parts[1] not in profile.parameters:
                raise fail(f"{where}.key", key,
                           f"unknown profile parameter; known: {sorted(profile.parameters)}")
        else:
            try:
                set_path(copy.deepcopy(base), key, 0.0)
            except KeyError as exc:
                raise fail(f"{where}.key", key, f"unknown key path: {exc.args[0]}") from None
        base_value = (profile.defaults()[parts[1]] if parts[0] == "profile"
                      else get_path(base, key))
        integer = (isinstance(base_value, int) and not isinstance(base_value, bool)) or (
            bounds is not None and profile[bounds[2]].integer)
        kinds = [k for k in ("uniform", "choice", "normal") if k in spec]
        if len(kinds) != 1:
            raise fail(where, sorted(spec), "give exactly one of uniform, choice, normal")
        kind = kinds[0]
        value = spec[kind]
        lo, hi = (bounds[0], bounds[1]) if bounds else (-math.inf, math.inf)
        rule_of = (f"the profile range [{lo}, {hi}] of {bounds[2]}" if bounds else "")
        if kind == "uniform":
            if not isinstance(value, list) or len(value) != 2:
                raise fail(f"{where}.uniform", value, "must be [low, high]")
            a = _number(fail, f"{where}.uniform[0]", value[0])
            b = _number(fail, f"{where}.uniform[1]", value[1])
            if a > b:
                raise fail(f"{where}.uniform", value, "low must be <= high")
            for j, x in enumerate((a, b)):
                if not lo <= x <= hi:
                    raise fail(f"{where}.uniform[{j}]", x, f"must lie in {rule_of} ({key})")
            out.append(Vary(key, kind, a, b, 0.5 * (a + b), (b - a) / math.sqrt(12.0),
                            integer=integer))
        elif kind == "choice":
            if not isinstance(value, list) or not value:
                raise fail(f"{where}.choice", value, "must be a non-empty array of values")
            for j, x in enumerate(value):
                if bounds and not (isinstance(x, (int, float)) and not isinstance(x, bool)
                                   and lo <= x <= hi):
                    raise fail(f"{where}.choice[{j}]", x, f"must lie in {rule_of} ({key})")
            out.append(Vary(key, kind, options=tuple(value)))
        else:
            if not isinstance(value, dict) or set(value) - {"mean", "std"} \
                    or not {"mean", "std"} <= set(value):
                raise fail(f"{where}.normal", value, "must be {mean = ..., std = ...}")
            mean = _number(fail, f"{where}.normal.mean", value["mean"])
            std = _number(fail, f"{where}.normal.std", value["std"])
            if std <= 0:
                raise fail(f"{where}.normal.std", std, "must be > 0")
            low = _number(fail, f"{where}.min", spec["min"]) if "min" in spec else lo
            high = _number(fail, f"{where}.max", spec["max"]) if "max" in spec else hi
            if not (math.isfinite(low) and math.isfinite(high)):
                raise fail(f"{where}.normal", value, f"{key} has no profile range: give min "
                                                     "and max (the truncation range)")
            if low < lo or high > hi or low > high:
                raise fail(f"{where}.min", [low, high], f"must lie in {rule_of} ({key})")
            if not low <= mean <= high:
                raise fail(f"{where}.normal.mean", mean, f"must lie in [{low}, {high}]")
            out.append(Vary(key, kind, low, high, mean, std, integer=integer))
        if kind != "choice" and integer and out[-1].kind != "choice" and \
                math.floor(out[-1].high) < math.ceil(out[-1].low):
            raise fail(f"{where}.{kind}", value, "contains no whole number")
    return out


def scenario_texts(spec: CampaignSpec, values: dict[str, Any]) -> tuple[str, str | None]:
    """The TOML text of the scenario of one run and of its profile (None: the embedded one)."""
    import tomli_w

    doc, profile_values = spec.document(values)
    profile_text = spec.profile_text
    if profile_values:
        profile_text = profile_with_defaults(spec, profile_values)
    if profile_text is not None:
        doc["scenario"]["profile"] = "profile.toml"
    return tomli_w.dumps(doc), profile_text


def profile_with_defaults(spec: CampaignSpec, values: dict[str, Any]) -> str:
    """The campaign's profile text with the defaults of ``values`` replaced."""
    import tomli_w

    from navproof.specs.profile import DEFAULT_PROFILE_PATH

    text = spec.profile_text
    if text is None:
        text = DEFAULT_PROFILE_PATH.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    for name, value in values.items():
        data["parameters"][name]["default"] = value
    return tomli_w.dumps(data)


def load_texts(scenario_text: str, profile_text: str | None, folder: Path,
               name: str = "scenario.toml", *, assertions: bool | None = None) -> Any:
    """Write the texts into ``folder`` and load the scenario (ScenarioError/SpecError on a
    defect)."""
    from navproof.scenario import load_scenario

    if profile_text is not None:
        (folder / "profile.toml").write_text(profile_text, encoding="utf-8")
    file = folder / name
    file.write_text(scenario_text, encoding="utf-8")
    return load_scenario(file, assertions=assertions)


def validate(spec: CampaignSpec, values: dict[str, Any], where: str) -> None:
    """Load the scenario of ``values`` like a scenario file; CampaignError naming the varied
    keys (``where``) and the scenario's own error."""
    from navproof.specs.errors import SpecError

    scenario_text, profile_text = scenario_texts(spec, values)
    with tempfile.TemporaryDirectory(prefix="navproof-campaign-") as folder:
        try:
            scenario = load_texts(scenario_text, profile_text, Path(folder))
        except (InvalidInput, SpecError) as exc:
            message = str(exc).replace(str(Path(folder) / "scenario.toml"), "sampled scenario")
            raise CampaignError(spec.file, where, values, f"the sampled scenario is invalid: "
                                                          f"{message}") from None
        scenario.world.close()
