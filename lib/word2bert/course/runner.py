"""The course runner: execute chapters in order and collect their results.

``python -m word2bert run [--profile ci|cpu|gpu] [--inplace] [chapters ...]`` runs the
notebooks under ``chapters/`` with nbclient, writes executed copies to
``runs/<profile>/`` (with each kernel's own log, ``NN_name.kernel.log``) and prints a
table built from each chapter's ``W2B_RESULTS`` line.
``python -m word2bert table`` prints the results table of the committed chapters, in
the README's format.
"""
from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

from word2bert.course.io import atomic_write
from word2bert.course.profiles import profile as resolve_profile

RESULTS_RE = re.compile(r"W2B_RESULTS\s+(\{.*\})")


class ChapterError(RuntimeError):
    """A chapter failed: the message names the chapter, the cell and the error."""


def find_chapters(chapters_dir: str | os.PathLike, selection=()) -> list[Path]:
    """Chapter notebooks in order, optionally filtered by number or name.

    Args:
        chapters_dir: folder holding ``NN_name.ipynb`` files.
        selection: e.g. ``["01", "3", "04_glove"]``; empty selects all.

    Returns:
        Sorted list of paths.

    Raises:
        FileNotFoundError: no such folder, or no notebooks in it.
        ValueError: a selection item matches no chapter.
    """
    folder = Path(chapters_dir)
    if not folder.is_dir():
        raise FileNotFoundError(
            f"no chapters folder at {folder.resolve()}: run from the course's root or pass --chapters-dir"
        )
    notebooks = sorted(p for p in folder.glob("[0-9][0-9]_*.ipynb"))
    if not notebooks:
        raise FileNotFoundError(f"no chapter notebooks (NN_name.ipynb) in {folder.resolve()}")
    if not selection:
        return notebooks
    chosen = []
    for item in selection:
        key = item.removesuffix(".ipynb")
        matches = [p for p in notebooks if p.stem == key or (key.isdigit() and p.stem.split("_")[0] == f"{int(key):02d}")]
        if not matches:
            raise ValueError(f"no chapter matches {item!r}; chapters are: {', '.join(p.stem for p in notebooks)}")
        chosen.extend(m for m in matches if m not in chosen)
    return sorted(chosen)


def results_of(nb) -> list[dict]:
    """Every ``W2B_RESULTS`` record printed in a notebook's outputs (parsed JSON)."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text", "")
            text = "".join(text) if isinstance(text, list) else text
            found.extend(json.loads(m) for m in RESULTS_RE.findall(text))
    return found


def strip_noise(nb) -> None:
    """Drop stderr streams (backend start-up logs) and per-cell timing metadata in place."""
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        cell["outputs"] = [o for o in cell.get("outputs", []) if not (o.get("output_type") == "stream" and o.get("name") == "stderr")]
        cell.get("metadata", {}).pop("execution", None)


def run_chapter(path: Path, out_dir: Path, profile: str, inplace: bool = False, progress=None) -> dict:
    """Execute one chapter; return its last ``W2B_RESULTS`` record.

    Raises:
        ChapterError: a cell raised, or the chapter printed no ``W2B_RESULTS`` line.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    code_cells = sum(c.cell_type == "code" for c in nb.cells)
    done = {"n": 0}

    def on_cell_executed(cell, cell_index, execute_reply):
        done["n"] += 1
        if progress is not None:
            progress.set_postfix_str(f"{path.stem}: cell {done['n']}/{code_cells}")

    previous_profile = os.environ.get("W2B_PROFILE")
    os.environ["W2B_PROFILE"] = profile  # the kernel inherits the environment
    client = NotebookClient(nb, timeout=None, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}},
                            on_cell_executed=on_cell_executed)
    started = time.time()
    log_path = out_dir / f"{path.stem}.kernel.log"  # the backend's start-up chatter goes here, not to the terminal
    try:
        with open(log_path, "wb") as kernel_log:
            client.execute(stderr=kernel_log)
    except CellExecutionError as err:
        strip_noise(nb)
        atomic_write(out_dir / path.name, nbformat.writes(nb))
        failed = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                       and any(o.get("output_type") == "error" for o in c.get("outputs", []))), None)
        raise ChapterError(f"{path.name} failed in cell {failed}:\n{err}") from None
    finally:
        if previous_profile is None:
            os.environ.pop("W2B_PROFILE", None)
        else:
            os.environ["W2B_PROFILE"] = previous_profile
    strip_noise(nb)
    atomic_write(out_dir / path.name, nbformat.writes(nb))
    if inplace:
        atomic_write(path, nbformat.writes(nb))
    records = results_of(nb)
    if not records:
        raise ChapterError(f"{path.name} ran but printed no W2B_RESULTS line")
    record = records[-1]
    record.setdefault("seconds", round(time.time() - started, 1))
    return record


def _metrics_text(metrics: dict) -> str:
    return ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in metrics.items())


def format_table(records: list[dict]) -> str:
    """A markdown table: chapter, profile, device, minutes, metrics."""
    lines = ["| chapter | profile | backend / device | minutes | results |", "|---|---|---|---|---|"]
    for r in records:
        lines.append(f"| {r['chapter']} | {r['profile']} | {r['backend']} / {r['device']} | "
                     f"{r['seconds'] / 60:.1f} | {_metrics_text(r['metrics'])} |")
    return "\n".join(lines)


def run_course(profile: str | None = None, selection=(), chapters_dir="chapters", runs_dir="runs",
               inplace: bool = False) -> list[dict]:
    """Run chapters in order; print and save the results table.

    Writes ``runs/<profile>/``: each executed notebook and its kernel log, ``results.md``
    (this run's table) and ``results.json`` (every chapter's latest record for this
    profile: chapters this run did not repeat keep their earlier record).

    Returns:
        list of result records, one per chapter of this run.

    Raises:
        ChapterError: the first chapter that fails stops the run.
        ValueError, FileNotFoundError: bad profile or selection, no chapters.
    """
    from tqdm import tqdm

    profile = resolve_profile(profile)
    chapters = find_chapters(chapters_dir, selection)
    out_dir = Path(runs_dir) / profile
    out_dir.mkdir(parents=True, exist_ok=True)
    records = []
    with tqdm(chapters, desc=f"word2bert [{profile}]", unit="chapter", file=sys.stderr) as bar:
        for path in bar:
            records.append(run_chapter(path, out_dir, profile, inplace=inplace, progress=bar))
    # results.json keeps the chapters of earlier runs of this profile that this run did not repeat
    saved = out_dir / "results.json"
    earlier = json.loads(saved.read_text()) if saved.exists() else []
    done = {r["chapter"] for r in records}
    merged = sorted([r for r in earlier if r.get("chapter") not in done] + records, key=lambda r: r["chapter"])
    atomic_write(saved, json.dumps(merged, indent=1))
    table = format_table(records)
    atomic_write(out_dir / "results.md", table + "\n")
    print(table)
    return records


def committed_table(chapters_dir="chapters", ci_results="runs/ci/results.json") -> str:
    """The README's table: each committed chapter's topic, run and results.

    Minutes come from the committed run (its profile and device are named) and, when
    ``ci_results`` exists (written by ``run --profile ci``), from the ci-profile run too.
    """
    import nbformat

    ci_minutes = {}
    if ci_results and Path(ci_results).exists():
        ci_minutes = {r["chapter"]: r["seconds"] / 60 for r in json.loads(Path(ci_results).read_text())}
    lines = ["| chapter | topic | committed run | minutes | ci minutes | measured results |",
             "|---|---|---|---|---|---|"]
    for path in find_chapters(chapters_dir):
        nb = nbformat.read(path, as_version=4)
        found = results_of(nb)
        title = next((re.sub(r"^#+\s*(\d+\s*[·—:-]\s*)?", "", c.source.splitlines()[0]).strip() for c in nb.cells
                      if c.cell_type == "markdown" and c.source.startswith("#")), path.stem)
        if not found:
            lines.append(f"| {path.stem} | {title} | not run yet | | | |")
            continue
        r = found[-1]
        ci = f"{ci_minutes[r['chapter']]:.1f}" if r["chapter"] in ci_minutes else ""
        lines.append(f"| {path.stem} | {title} | {r['profile']}, {r['backend']} / {r['device']} | "
                     f"{r['seconds'] / 60:.1f} | {ci} | {_metrics_text(r['metrics'])} |")
    return "\n".join(lines)
