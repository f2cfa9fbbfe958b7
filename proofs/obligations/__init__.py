"""Proof obligations: one named builder per claim, over the ranges of a parameter profile.

One module per family, mirroring the derivation modules of ``navproof.proofs``:

=================  ==========================  ===========================================
module             claims                      derivations it builds on
=================  ==========================  ===========================================
``boundary``       B1-B5                       ``navproof.proofs.boundary``
``stop_envelope``  S1-S5                       ``stop_envelope``, ``slope``, ``boundary``
``invariance``     S7                          ``stop_envelope``, ``boundary``, ``slope``
``reference``      R2, R3                      ``boundary``, ``slope``
``access_curve``   A1-A5                       ``access_curve``
``slope``          V1                          ``slope``
``orca``           O1, O3, O5, O6, O7          ``orca``
``steering``       T2, T3                      ``steering``
``rigid``          B6 (M2, interpolation)      ``rigid``
``rigid_curves``   B6 (pivot, step curve)      ``rigid``, ``boundary``
``rigid_stop``     B6 (stop after the step)    ``rigid``, ``stop_envelope``
=================  ==========================  ===========================================

The building blocks (``Obligation``, ``Step``, ``Replay``, ``Builder``, vector helpers) live in
``common``; see its docstring for what an obligation holds.

Adding a family
---------------
Write ``proofs/obligations/<family>.py`` that imports its blocks from
``navproof.proofs.obligations.common`` and defines, at module level,

- ``OBLIGATIONS``: ``{obligation ID: builder}``, in claim order; a builder takes the ``Profile``
  and returns a fresh ``Obligation`` whose ``id`` is its key (``"B5/extremum"``: claim ``B5``);
- ``REFUTABLE`` (optional): the frozenset of its IDs whose naive statement is false, so that a
  confirmed counterexample is their expected outcome;

then add the module's name to ``FAMILIES`` below (one line). The registry rejects an ID that two
families declare. Nothing else changes: ``navproof prove``, ``navproof claims`` and the engine
read ``BUILDERS``.

``build(id, profile)`` rebuilds one obligation by ID, which is how worker processes get their own
z3 terms.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from types import ModuleType

from navproof.proofs.obligations.common import PROVED, REFUTED, Obligation, Replay, Step
from navproof.proofs.z3_context import fresh_context
from navproof.specs.profile import Profile

__all__ = [
    "BUILDERS",
    "FAMILIES",
    "OBLIGATION_IDS",
    "PROVED",
    "REFUTABLE_OBLIGATIONS",
    "REFUTED",
    "Obligation",
    "Replay",
    "Step",
    "build",
    "collect",
    "claim_of",
    "expected_of",
    "obligations_for",
    "proof_locations",
]

# The registry: family modules of this package, in the order `navproof prove` reports them.
FAMILIES: tuple[str, ...] = (
    "boundary",
    "stop_envelope",
    "invariance",
    "reference",
    "access_curve",
    "slope",
    "orca",
    "steering",
    "rigid",
    "rigid_curves",
    "rigid_stop",
)


def collect(
    modules: Iterable[ModuleType],
) -> tuple[dict[str, Callable[[Profile], Obligation]], frozenset[str]]:
    """The builders by ID and the refutable IDs declared by family ``modules``, in order.

    Raises ``ValueError`` when two families declare one ID or ``REFUTABLE`` names an ID its
    family does not declare.
    """
    builders: dict[str, Callable[[Profile], Obligation]] = {}
    refutable: set[str] = set()
    for module in modules:
        for obligation_id, builder in module.OBLIGATIONS.items():
            if obligation_id in builders:
                raise ValueError(
                    f"obligation {obligation_id} is declared twice ({module.__name__})"
                )
            builders[obligation_id] = builder
        declared = frozenset(getattr(module, "REFUTABLE", frozenset()))
        unknown = declared - set(module.OBLIGATIONS)
        if unknown:
            raise ValueError(f"{module.__name__}: REFUTABLE names unknown {sorted(unknown)}")
        refutable.update(declared)
    return builders, frozenset(refutable)


BUILDERS, REFUTABLE_OBLIGATIONS = collect(
    importlib.import_module(f"{__name__}.{family}") for family in FAMILIES
)
"""Every obligation builder by ID; the IDs whose expected outcome is a confirmed counterexample."""

OBLIGATION_IDS: tuple[str, ...] = tuple(BUILDERS)


def expected_of(obligation_id: str) -> str:
    """PROVED or REFUTED, known without building the obligation."""
    return REFUTED if obligation_id in REFUTABLE_OBLIGATIONS else PROVED


def claim_of(obligation_id: str) -> str:
    """The claim ID an obligation discharges (``B5/endpoints`` -> ``B5``)."""
    return obligation_id.split("/", 1)[0]


def obligations_for(claim_ids: list[str] | None = None) -> list[str]:
    """Obligation IDs of the given claims (all of them when None), in registry order."""
    if claim_ids is None:
        return list(OBLIGATION_IDS)
    wanted = set(claim_ids)
    return [oid for oid in OBLIGATION_IDS if claim_of(oid) in wanted or oid in wanted]


def proof_locations(claim_id: str) -> list[str]:
    """Where a claim is discharged: ``module.function`` of each of its obligation builders."""
    return [
        f"{BUILDERS[oid].__module__}.{BUILDERS[oid].__name__}"
        for oid in obligations_for([claim_id])
    ]


def build(obligation_id: str, profile: Profile) -> Obligation:
    """Build the obligation ``obligation_id`` afresh over ``profile``, in a fresh z3 context
    (``navproof.proofs.z3_context``), so that its proof does not depend on what was built or
    decided before it in the same process."""
    fresh_context()
    return BUILDERS[obligation_id](profile)
