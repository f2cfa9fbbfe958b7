"""Applications that run the library for a user: demos shown by ``navproof simulate NAME``.

The library (``navproof.core`` ... ``navproof.world``) never imports from here
(``tests/unit/test_layers.py`` checks it)."""
