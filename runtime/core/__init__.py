"""Shared core of the runtime: typed errors, input validation and the profile's run-time ranges."""
