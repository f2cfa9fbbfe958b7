"""Falsification campaigns: sample (or search) a space of scenario files, run each World with
the independent truth check on every step, and keep the evidence in one SQLite file.

An application package: ``navproof campaign`` uses it; the library never imports it.
Modules: :mod:`.spec` (the campaign file, key paths, distributions), :mod:`.worker` (one run),
:mod:`.truth` (the adapter to the independent check), :mod:`.search` (random and
cross-entropy), :mod:`.executors` (process pool, Dask), :mod:`.results` (SQLite),
:mod:`.shrink` (counterexamples), :mod:`.report` (JSON, JUnit, picture).
"""
