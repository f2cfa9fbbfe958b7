"""The specification as data: the claim catalogue and the parameter profiles."""

from navproof.specs.claims import Claim, load_claims
from navproof.specs.errors import SpecError
from navproof.specs.profile import (
    DEFAULT_PROFILE_PATH,
    PARAMETER_RULES,
    Parameter,
    Profile,
    load_profile,
)

__all__ = [
    "Claim",
    "DEFAULT_PROFILE_PATH",
    "PARAMETER_RULES",
    "Parameter",
    "Profile",
    "SpecError",
    "load_claims",
    "load_profile",
]
