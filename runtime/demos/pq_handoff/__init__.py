"""The seed's P/Q slope handoff demo (``navproof simulate pq-handoff``): its data file and
schema (:mod:`.data`), the simulated world, the drive loop, the report and the ``--crash-at``
kill (:mod:`.run`), and the world's table in the record file (:mod:`.world_table`).
Claim: A1-A5, H1-H10, V1."""
