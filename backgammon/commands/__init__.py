"""The ``backgammon`` sub-commands that are programs of their own (each module has
``main(argv) -> int`` and its own ``--help``): ``convert``, ``analyse``, ``rollout``,
``engine``. :mod:`backgammon.cli` hands them every argument."""
