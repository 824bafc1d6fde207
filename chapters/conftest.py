"""The chapters under nbval with pytest-xdist (``-n 2 --dist loadgroup``, as CI runs them).

nbval makes each code cell of a notebook one test, and they must run in order in one kernel; a chapter that reads
what an earlier chapter saved under ``models/<profile>/`` (chapter 06 reads 05's model, 08 reads 07's vocabularies,
10-12 read 09's checkpoint and vocabulary) must run after it. So every notebook belongs to
a group named after the first chapter of its chain, found by reading which ``NN_name.keras|txt|json`` files each notebook
names. With ``-n 2 --dist loadgroup`` the scheduler below sends each chain to one worker, in file order; without
``-n`` these hooks only put the chapters first.
"""
import json
import re
from pathlib import Path

import pytest

_SAVED_FILE = re.compile(r"\b(\d\d)_[a-z0-9_{}]+\.(?:keras|txt|json)\b")


def chapter_groups(folder=Path(__file__).parent):
    """``{"NN": group}`` for every ``NN_*.ipynb`` in ``folder``: chapters linked by a file one saves and another
    reads share the group named after the lowest number of their chain."""
    parent = {}

    def root(n):
        while parent.setdefault(n, n) != n:
            n = parent[n]
        return n

    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        number = path.name[:2]
        root(number)
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        for other in set(_SAVED_FILE.findall(code)) - {number}:
            a, b = sorted((root(number), root(other)))
            parent[b] = a
    return {n: f"chapter-{root(n)}" for n in parent}


def _notebook_group(nodeid, groups):
    """The chain group of a chapter cell's node id (``chapters/06_attention.ipynb::Cell 3`` -> ``chapter-05``), or
    None for anything else."""
    path = Path(nodeid.split("::", 1)[0])
    if path.suffix == ".ipynb" and path.parent.name == Path(__file__).parent.name:
        return groups.get(path.name[:2], path.stem)
    return None


def pytest_collection_modifyitems(config, items):
    """Chapters first, the longest chain first (so that it starts at once on a worker), cells in order."""
    groups = chapter_groups()
    size = {g: list(groups.values()).count(g) for g in groups.values()}
    rank = {}
    for item in items:
        group = _notebook_group(item.nodeid, groups)
        rank[item.nodeid] = (0, -size.get(group, 1), group) if group else (1, 0, "")
    items.sort(key=lambda item: rank[item.nodeid])   # stable: cells and tests keep their order within a rank


def pytest_xdist_make_scheduler(config, log):
    """With ``--dist loadgroup``: each chapter chain is one unit of work, every other test its own unit.

    (xdist's own loadgroup reads an ``xdist_group`` marker through ``item._nodeid``, which pytest 9.2 no longer
    uses for ``nodeid``, so the marker would be ignored; this scheduler reads the chain from the node id instead.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    groups = chapter_groups()

    class ChapterChains(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return _notebook_group(nodeid, groups) or nodeid

    return ChapterChains(config, log)
