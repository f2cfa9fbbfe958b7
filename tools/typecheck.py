"""Type-check the installed layout of the `navproof` package with mypy (`mypy -p navproof`).

The import package `navproof` is served by three folders (`runtime/`, `proofs/`, `specs/`, see
`[tool.setuptools] package-dir` in pyproject.toml). The editable install resolves them with an
import hook that mypy cannot follow, so this script lays the installed layout out as a tree of
symbolic links (`build/typecheck/navproof/...`) read from the same `package-dir` table, runs
`mypy -p navproof` on it with the project's `[tool.mypy]` configuration, and prints every error
under its source path (`runtime/...`, `proofs/...`, `specs/...`). The exit code is mypy's.

Which packages gate (must be clean) and which are not yet gated is set in pyproject.toml
(`[[tool.mypy.overrides]]`); `--all` reports every error, gated or not, without failing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "typecheck"


def package_dirs() -> dict[str, Path]:
    """Import package name -> source folder, from pyproject.toml's `package-dir` table."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        table = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    return {name: ROOT / folder for name, folder in table.items()}


def lay_out_tree() -> dict[Path, Path]:
    """Build `build/typecheck/<package path>` as links to the source folders.

    Returns the map from each linked folder in the tree to its source folder, longest first, to
    translate mypy's paths back.
    """
    if TREE.exists():
        shutil.rmtree(TREE)
    dirs = package_dirs()
    mapping: dict[Path, Path] = {}
    for name in sorted(dirs, key=lambda n: n.count(".")):
        target = TREE.joinpath(*name.split("."))
        target.mkdir(parents=True, exist_ok=True)
        nested = {n.rsplit(".", 1)[-1] for n in dirs if n.startswith(name + ".")
                  and n.count(".") == name.count(".") + 1}
        for child in sorted(dirs[name].iterdir()):
            if child.name in nested or child.name == "__pycache__":
                continue
            os.symlink(child, target / child.name)
        mapping[target] = dirs[name]
    return dict(sorted(mapping.items(), key=lambda kv: -len(str(kv[0]))))


def to_source_path(line: str, mapping: dict[Path, Path]) -> str:
    """Rewrite a mypy message's tree path (`build/typecheck/navproof/x.py`) to its source path."""
    for tree_dir, src_dir in mapping.items():
        prefix = os.path.relpath(tree_dir, Path.cwd()) + os.sep
        if line.startswith(prefix):
            return os.path.relpath(src_dir, Path.cwd()) + os.sep + line[len(prefix):]
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true",
                        help="report errors in the packages not yet gated too (exit 0)")
    args, extra = parser.parse_known_args(argv)
    mapping = lay_out_tree()
    from mypy import api

    # --all: the same configuration with the not-yet-gated packages' `ignore_errors` lifted
    config = _all_config() if args.all else ROOT / "pyproject.toml"
    options = ["--config-file", str(config), "--cache-dir", str(ROOT / ".mypy_cache"), *extra]
    os.environ["MYPYPATH"] = str(TREE)
    stdout, stderr, status = api.run([*options, "-p", "navproof"])
    for line in stdout.splitlines():
        print(to_source_path(line, mapping))
    if stderr:
        print(stderr, file=sys.stderr, end="")
    return 0 if args.all and status == 1 else status


def _all_config() -> Path:
    """A copy of pyproject.toml's mypy settings without the `ignore_errors` overrides."""
    text = (ROOT / "pyproject.toml").read_text()
    path = TREE / "mypy-all.toml"
    path.write_text(re.sub(r"(?m)^ignore_errors = true$", "ignore_errors = false", text))
    return path


if __name__ == "__main__":
    sys.exit(main())
