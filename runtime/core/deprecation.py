"""Old keyword spellings of the public API, kept for one release: each still works and emits a
``DeprecationWarning`` naming the new, unit-suffixed name."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any


def renamed_keywords(where: str, given: dict[str, Any], aliases: Mapping[str, str],
                     *, stacklevel: int = 3) -> dict[str, Any]:
    """``given`` keywords with each old name of ``aliases`` (old -> new) replaced by its new
    name, warning once per old name used. A keyword given under both names is
    a TypeError, as Python reports a doubled argument."""
    out = dict(given)
    for old, new in aliases.items():
        if old not in out:
            continue
        if new in out and out[new] is not None:
            raise TypeError(f"{where}: got both {old!r} and its new name {new!r}")
        warnings.warn(f"{where}: {old!r} is deprecated, use {new!r} (the old name is removed "
                      "in the next release)", DeprecationWarning, stacklevel=stacklevel)
        out[new] = out.pop(old)
    return out


def warn_renamed_attribute(owner: str, old: str, new: str) -> None:
    """Warn that attribute ``old`` of ``owner`` is now ``new``."""
    warnings.warn(f"{owner}.{old} is deprecated, use {owner}.{new} (the old name is removed in "
                  "the next release)", DeprecationWarning, stacklevel=3)
