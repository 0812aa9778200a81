"""Test-only oracles (GNU Backgammon as a separate process, PyPI ``gnubg_nn``).

Nothing in here is imported by the ``backgammon`` package: gnubg and gnubg_nn are GPL and are
used only as external reference tools by the tests and by the reference-table generator.
"""
