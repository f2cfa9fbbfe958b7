"""Fuzzing the safe step: a SAFE label on a velocity that violates a given line is impossible.

ORCA lines with any direction (unit, scaled, zero, NaN) and any point: the step either refuses
the input with InvalidInput naming ``orca_direction``/``orca_point``, or every agent it labels
safe satisfies every line it was given (measured with the direction normalised, so a scaled
direction could not hide a violation). Claim: O2, S6 (validated input), F1-F3 (labels).
"""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

import navproof.boundary as b
from navproof import step as ss
from navproof.core.errors import InvalidInput
from navproof.step.result import SAFE

COMPONENT = st.one_of(st.floats(-3.0, 3.0), st.sampled_from([0.0, 10.0, -10.0, 1e-9]))
ANGLE = st.floats(0.0, 2.0 * np.pi)
PAIR = st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0))


@st.composite
def lines(draw):
    k = draw(st.integers(1, 4))
    points = [draw(PAIR) for _ in range(k)]
    if draw(st.booleans()):
        directions = [(float(np.cos(a)), float(np.sin(a))) for a in
                      (draw(ANGLE) for _ in range(k))]
    else:
        directions = [(draw(COMPONENT), draw(COMPONENT)) for _ in range(k)]
    return np.array([points], float), np.array([directions], float)


def _input(point, direction, pref, velocity) -> ss.StepInput:
    edges = b.EdgeSet.build(np.array([[(1.0, 0.0)]]), np.array([[3.0]]))
    return ss.StepInput(np.zeros((1, 2)), np.array([velocity], float), np.array([pref], float),
                        0.1, b.Support.translating(np.zeros((1, 2))), edges, np.array([2.0]),
                        np.array([1.0]), np.array([0.3]), orca_point=point,
                        orca_direction=direction,
                        orca_valid=np.ones(point.shape[:2], bool))


@settings(max_examples=80)
@given(line_set=lines(), pref=PAIR, velocity=PAIR)
@example(line_set=(np.array([[(0.02, 0.0)]]), np.array([[(0.0, 10.0)]])), pref=(0.0, 0.0),
         velocity=(0.0, 0.0))
@example(line_set=(np.array([[(0.02, 0.0)]]), np.array([[(0.0, 0.0)]])), pref=(-1.0, 0.0),
         velocity=(0.0, 0.0))
def test_a_violating_velocity_is_never_labelled_safe(line_set, pref, velocity) -> None:
    point, direction = line_set
    try:
        res = ss.solve_safe_step(_input(point, direction, pref, velocity), assertions=False)
    except InvalidInput as exc:
        assert exc.field.startswith(("orca_direction", "orca_point"))
        return
    v = res.velocity_mps
    assert np.isfinite(v).all()
    if res.label[0] == SAFE:
        unit = direction / np.linalg.norm(direction, axis=-1, keepdims=True)
        # det(unit direction, point - v) <= 0: the LEFT side of each line
        viol = unit[0, :, 0] * (point[0, :, 1] - v[0, 1]) - unit[0, :, 1] * (point[0, :, 0] - v[0, 0])
        assert viol.max() <= 1e-9, (viol, res.label_names())


@settings(max_examples=40)
@given(pivot=st.tuples(COMPONENT, st.one_of(COMPONENT, st.just(float("nan")))),
       omega=st.one_of(st.floats(-1.0, 1.0), st.just(float("nan")), st.just(float("inf"))))
def test_a_support_built_directly_is_checked_like_a_validated_one(pivot, omega) -> None:
    inp = _input(np.zeros((1, 0, 2)), np.zeros((1, 0, 2)), (0.5, 0.0), (0.0, 0.0))
    motion = b.Motion(np.array([pivot], float), np.zeros((1, 2)), np.array([omega], float),
                      np.zeros(1, np.int64))
    bad = ss.StepInput(**{**inp.__dict__, "support": b.Support(motion),
                          "orca_valid": np.zeros((1, 0), bool)})
    try:
        res = ss.solve_safe_step(bad, assertions=True)
    except InvalidInput as exc:
        assert exc.field.startswith("support.motion")
        assert not (np.isfinite(pivot).all() and np.isfinite(omega))
        return
    assert np.isfinite(res.velocity_mps).all()
