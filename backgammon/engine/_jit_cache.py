"""Keep numba's on-disk cache of the engine's kernels coherent across their source files.

numba caches a compiled function beside its source (``__pycache__/*.nbi``, ``*.nbc``) and
throws the entry away when *that* file changes — but not when a file it calls into does.
The search and rollout kernels inline the network and the encoder of ``_kernels.py`` and the
move generator of ``_movegen.py``: after a change there (a ``git pull``, an edit) their
cached machine code would still run the old network or inputs, silently. So the engine's
cache carries a digest of every kernel source (and of numba's version), and a cache built
from other sources is dropped before anything is loaded from it:

>>> import tempfile
>>> from pathlib import Path
>>> d = Path(tempfile.mkdtemp()); src = d / "k.py"; _ = src.write_text("x = 1")
>>> cache = d / "__pycache__"; cache.mkdir(); _ = (cache / "k.f-1.py311.nbi").write_bytes(b"")
>>> drop_stale(cache, [src])  # no digest yet: the entries' origin is unknown
True
>>> _ = (cache / "k.f-1.py311.nbi").write_bytes(b""); drop_stale(cache, [src])  # same sources
False
>>> _ = src.write_text("x = 2"); drop_stale(cache, [src]), sorted(p.name for p in cache.iterdir())
(True, ['kernels.digest'])

Only the in-tree cache is handled (numba's default wherever the package folder is
writable, as in a checkout); with ``NUMBA_CACHE_DIR`` set, or a read-only install, numba
keeps its cache elsewhere, and installing a new version rewrites every source file, which
invalidates every entry anyway.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

#: The file in the cache folder that names the sources its entries were compiled from.
DIGEST_FILE = "kernels.digest"


def digest(sources: Iterable[Path]) -> str:
    """SHA-256 over the sources' names and bytes and numba's version."""
    h = hashlib.sha256()
    try:
        import numba

        h.update(str(numba.__version__).encode())
    except ImportError:  # pragma: no cover - numba is a hard dependency
        pass
    for path in sources:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def drop_stale(cache: Path, sources: Iterable[Path]) -> bool:
    """Delete numba's entries in ``cache`` unless they were compiled from exactly
    ``sources`` (as recorded there by the last call); record the sources. Returns whether
    anything was dropped. Never raises for a cache it cannot read or write."""
    want = digest(sources)
    stamp = cache / DIGEST_FILE
    try:
        if stamp.read_text().strip() == want:
            return False
    except OSError:
        pass
    dropped = False
    try:
        cache.mkdir(parents=True, exist_ok=True)
        for entry in cache.iterdir():
            if entry.suffix in (".nbi", ".nbc"):
                entry.unlink(missing_ok=True)
                dropped = True
        tmp = cache / f"{DIGEST_FILE}.{os.getpid()}.tmp"
        tmp.write_text(want + "\n")
        os.replace(tmp, stamp)
    except OSError:
        pass
    return dropped


def check_engine_cache() -> bool:
    """:func:`drop_stale` for the engine's kernels (called once, when ``_kernels`` is
    first imported, before any of them is compiled or loaded)."""
    here = Path(__file__).resolve().parent
    sources = [here.parent / "_movegen.py",
               *(here / f"{name}.py" for name in ("_kernels", "_search_kernels",
                                                   "_rollout_kernels", "bearoff"))]
    if not os.access(here, os.W_OK):
        return False
    return drop_stale(here / "__pycache__", [p for p in sources if p.exists()])
