"""A weakened safe step planted for the campaign tests: the solve sees every boundary edge
``WEAKENING_M`` further out than it is (its initial wall margin s = b0 - n.x0 too large), so
a body near a wall can be labelled safe while it crosses the wall; the World's layout, and so
the independent check, keep the true edges."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator

import navproof.world.world as world_module

WEAKENING_M = 0.1


@contextlib.contextmanager
def weakened_wall_margin(weakening_m: float = WEAKENING_M) -> Iterator[None]:
    original = world_module.solve_safe_step

    def weak(inp, **kwargs):  # type: ignore[no-untyped-def]
        edges = dataclasses.replace(inp.edges, offset_m=inp.edges.offset_m + weakening_m)
        return original(dataclasses.replace(inp, edges=edges), **kwargs)

    world_module.solve_safe_step = weak
    try:
        yield
    finally:
        world_module.solve_safe_step = original
