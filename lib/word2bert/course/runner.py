"""The course runner: execute chapters in order and collect their results.

``python -m word2bert run [--profile ci|cpu|gpu] [--inplace] [chapters ...]`` runs the
notebooks under ``chapters/`` with nbclient, writes executed copies to
``runs/<profile>/`` (with each kernel's own log, ``NN_name.kernel.log``) and prints a
table built from each chapter's ``W2B_RESULTS`` line.
``python -m word2bert table`` prints the results table of the committed chapters: every metric
of every committed run, the table on the website's results page.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

from word2bert.utils.io import atomic_write
from word2bert.course.profiles import profile as resolve_profile
from word2bert.utils.imports import require

RESULTS_RE = re.compile(r"W2B_RESULTS\s+(\{.*\})")
# a file a chapter saves in models/<profile>/, its name possibly an f-string template (07_wordpiece_{lang}.txt)
SAVED_FILE_RE = re.compile(r"\b(\d\d)_[a-z0-9_{}]+\.(?:keras|txt|json)\b")


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


@contextlib.contextmanager
def _environment(**values):
    """Set environment variables (None: unset) for the block, the kernels started in it inheriting them; restore
    each one's earlier value (or absence) afterwards."""
    def apply(settings):
        for key, value in settings.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value

    earlier = {key: os.environ.get(key) for key in values}
    try:
        apply(values)
        yield
    finally:
        apply(earlier)


def run_chapter(path: Path, out_dir: Path, profile: str, inplace: bool = False, progress=None) -> dict:
    """Execute one chapter; return its last ``W2B_RESULTS`` record.

    Raises:
        ChapterError: a cell raised, or the chapter printed no ``W2B_RESULTS`` line.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, DeadKernelError

    nb = nbformat.read(path, as_version=4)
    code_cells = sum(c.cell_type == "code" for c in nb.cells)
    done = {"n": 0}

    def on_cell_executed(cell, cell_index, execute_reply):
        done["n"] += 1
        if progress is not None:
            progress.set_postfix_str(f"{path.stem}: cell {done['n']}/{code_cells}")

    client = NotebookClient(nb, timeout=None, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}},
                            on_cell_executed=on_cell_executed)
    started = time.time()
    log_path = out_dir / f"{path.stem}.kernel.log"  # the backend's start-up chatter goes here, not to the terminal
    try:
        with open(log_path, "wb") as kernel_log, _environment(W2B_PROFILE=profile):  # the kernel inherits it
            client.execute(stderr=kernel_log)
    except (CellExecutionError, DeadKernelError, AssertionError) as err:   # nbclient's clean-up after a dead
        strip_noise(nb)                                                    # kernel asserts
        atomic_write(out_dir / path.name, nbformat.writes(nb))
        if isinstance(err, CellExecutionError):
            failed = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                           and any(o.get("output_type") == "error" for o in c.get("outputs", []))), None)
            raise ChapterError(f"{path.name} failed in cell {failed}:\n{err}") from None
        raise ChapterError(f"{path.name}: the kernel died after cell {done['n']} of {code_cells} (out of memory? "
                           f"see {log_path}): {type(err).__name__} {err}") from None
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


def missing_inputs(path: Path, profile: str, models_dir: str | os.PathLike | None = None) -> dict[str, list[str]]:
    """The files an earlier chapter saves that chapter ``path`` reads and that are not there yet.

    A chapter that reads another chapter's saved files names them in its code (``09_bert_pretrainer.keras``,
    ``07_wordpiece_{lang}.txt``): every such name with a lower chapter number is looked for in ``models/<profile>/``
    (a name with ``{...}`` in it is there when any file matches it with the braces read as ``*``).

    Args:
        path: the chapter notebook.
        profile: the profile whose saved files it reads.
        models_dir: the folder of the saved files (default: ``models/<profile>`` beside the chapters' folder).

    Returns:
        ``{"09": ["09_bert_pretrainer.keras", ...]}``: for each earlier chapter, the files missing; empty when
        nothing is missing.
    """
    import nbformat

    folder = Path(models_dir) if models_dir is not None else Path(path).resolve().parent.parent / "models" / profile
    nb = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    number = Path(path).name[:2]
    missing: dict[str, list[str]] = {}
    for found in sorted(set(m.group(0) for m in SAVED_FILE_RE.finditer(code))):
        if found[:2] < number and not any(folder.glob(re.sub(r"\{[^}]*\}", "*", found))):
            missing.setdefault(found[:2], []).append(found)
    return missing


def with_prerequisites(chapters: list[Path], profile: str, chapters_dir="chapters") -> tuple[list[Path], list[str]]:
    """The chapters to run so that each selected one finds the saved files it reads: the selection, preceded by the
    earlier chapters whose files are missing (and, in turn, theirs).

    Returns:
        (chapters in order, one line per chapter added saying why and how long its saved run took).
    """
    import nbformat

    every = {p.name[:2]: p for p in find_chapters(chapters_dir)}
    chosen = {p.name[:2]: p for p in chapters}
    notes = []
    queue = sorted(chosen, reverse=True)
    while queue:
        number = queue.pop(0)
        for earlier, files in missing_inputs(chosen[number], profile).items():
            if earlier in chosen or earlier not in every:
                continue
            chosen[earlier] = every[earlier]
            queue.append(earlier)
            queue.sort(reverse=True)
            nb_records = results_of(nbformat.read(every[earlier], as_version=4))
            took = (f"; its saved {nb_records[-1]['profile']} run took {nb_records[-1]['seconds'] / 60:.1f} min"
                    if nb_records else "")
            notes.append(f"word2bert: chapter {number} reads {', '.join(files)}, not yet saved in models/{profile}/: "
                         f"running {every[earlier].stem} first{took}")
    return [chosen[n] for n in sorted(chosen)], notes


def _metrics_text(metrics: dict) -> str:
    return ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in metrics.items())


def format_table(records: list[dict]) -> str:
    """A markdown table: chapter, profile, device, minutes, metrics."""
    lines = ["| chapter | profile | backend / device | minutes | results |", "|---|---|---|---|---|"]
    for r in records:
        lines.append(f"| {r['chapter']} | {r['profile']} | {r['backend']} / {r['device']} | "
                     f"{r['seconds'] / 60:.1f} | {_metrics_text(r['metrics'])} |")
    return "\n".join(lines)


PROGRESS_FILE = "progress.json"


def chapter_digest(path: Path) -> str:
    """sha256 of a chapter's code cells (what it runs; prose and outputs left out), 16 hex digits."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    code = "\n\x00".join(c.source for c in nb.cells if c.cell_type == "code")
    return hashlib.sha256(code.encode("utf-8")).hexdigest()[:16]


def _resumable(progress_path: Path, profile: str, names: list[str]) -> dict:
    """The finished chapters of an interrupted run of the same chapters and profile: ``{name: record}``, each with
    the digest it ran with; empty when there is no unfinished run to resume."""
    try:
        progress = json.loads(progress_path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}
    if progress.get("profile") != profile or progress.get("chapters") != names or progress.get("finished_all"):
        return {}
    return progress.get("done", {})


def run_course(profile: str | None = None, selection=(), chapters_dir="chapters", runs_dir="runs",
               inplace: bool = False, fresh: bool = False) -> list[dict]:
    """Run chapters in order; print and save the results table.

    A selected chapter that reads files an earlier chapter saves (chapter 10 reads chapter 09's pretrained BERT)
    runs after that chapter when the files are not yet in ``models/<profile>/``: the runner adds it, says so and
    how long its saved run took (``with_prerequisites``). Only the selected chapters are written back with
    ``inplace``.

    Writes ``runs/<profile>/``: each executed notebook and its kernel log, ``results.md``
    (this run's table) and ``results.json`` (every chapter's latest record for this
    profile: chapters this run did not repeat keep their earlier record), and ``progress.json`` after each chapter
    (atomically). A run that was interrupted (killed, or stopped by a failing chapter) is resumed by the same
    command: the chapters it finished, unchanged since (the digest of their code cells), are not run again, and
    the runner says which it skips; ``fresh=True`` runs everything.

    Returns:
        list of result records, one per chapter of this run.

    Raises:
        ChapterError: the first chapter that fails stops the run.
        ValueError, FileNotFoundError: bad profile or selection, no chapters.
    """
    tqdm = require("tqdm", extra="course", purpose="the course runner").tqdm

    profile = resolve_profile(profile)
    chapters = find_chapters(chapters_dir, selection)
    selected = {p.stem for p in chapters}
    if selection:
        chapters, notes = with_prerequisites(chapters, profile, chapters_dir)
        for note in notes:
            print(note, file=sys.stderr)
    out_dir = Path(runs_dir) / profile
    out_dir.mkdir(parents=True, exist_ok=True)
    names = [p.stem for p in chapters]
    progress_path = out_dir / PROGRESS_FILE
    digests = {p.stem: chapter_digest(p) for p in chapters}
    earlier_done = {} if fresh else _resumable(progress_path, profile, names)
    done = {n: r for n, r in earlier_done.items() if r.get("digest") == digests.get(n)}
    if done:
        changed = sorted(set(earlier_done) - set(done))
        print(f"word2bert: resuming an interrupted {profile} run: {', '.join(sorted(done))} finished then and "
              f"{'are' if len(done) > 1 else 'is'} not run again"
              + (f"; {', '.join(changed)} changed since and run{'' if len(changed) > 1 else 's'} again" if changed
                 else "") + " (--fresh runs everything)", file=sys.stderr)

    def save_progress(finished_all=False):
        atomic_write(progress_path, json.dumps({"profile": profile, "chapters": names, "done": done,
                                                "finished_all": finished_all}, indent=1))

    save_progress()
    records = []
    with tqdm(chapters, desc=f"word2bert [{profile}]", unit="chapter", file=sys.stderr) as bar:
        for path in bar:
            if path.stem in done:
                records.append({k: v for k, v in done[path.stem].items() if k != "digest"})
                continue
            record = run_chapter(path, out_dir, profile, inplace=inplace and path.stem in selected, progress=bar)
            records.append(record)
            done[path.stem] = {**record, "digest": digests[path.stem]}
            save_progress()
    save_progress(finished_all=True)
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


def run_smoke(selection=(), root=None, chapters_dir="chapters", data_dir="data",
              jax_devices: int = 2) -> list[dict]:
    """Run chapters with the gpu profile's shapes and the ci profile's amounts (``W2B_SMOKE=1``), on this machine.

    Everything is written under a scratch folder ``root`` (default: a new temporary folder): copies of the chapters,
    an empty ``models/`` (so a smoke run never touches the checkpoints of a real gpu run), ``runs/gpu/`` with each
    executed notebook, and links to the real ``data/`` and ``benchmarks/`` beside ``data_dir`` (read, as by a real
    run). A few steps learn
    little, so the kernels run with ``PYTHONOPTIMIZE=1``: the notebooks' ``assert`` statements on learned results
    are skipped, while every error a cell raises (shapes, dtypes, a missing file, a non-finite loss that a library
    function rejects) still fails the chapter. Every selected
    chapter runs, in order, even after one fails (a chapter that reads a failed one's files then fails too). Chapter
    09, when selected, then runs a second time on the JAX backend with ``jax_devices`` simulated CPU devices
    (``XLA_FLAGS=--xla_force_host_platform_device_count``), so that its data-parallel path runs too
    (``runs/gpu-jax/``). A table of every chapter's outcome and minutes is printed and saved as ``runs/smoke.md``.
    Use ``python -m word2bert smoke [chapters]``.

    Returns:
        the result records of every chapter run (each with ``smoke: True``), chapter 09's JAX run last.

    Raises:
        ChapterError: after the last chapter, when any failed (each failed notebook is kept under ``root``).
        ValueError, FileNotFoundError: bad selection, no chapters, no ``data_dir``.
    """
    import shutil
    import tempfile

    data = Path(data_dir).resolve()
    if not data.is_dir():
        raise FileNotFoundError(f"no data folder at {data}: run the smoke test from the repository root")
    chapters = find_chapters(chapters_dir, selection)
    root = Path(root) if root is not None else Path(tempfile.mkdtemp(prefix="w2b-smoke-"))
    (root / "chapters").mkdir(parents=True, exist_ok=True)
    for path in Path(chapters_dir).glob("*.ipynb"):   # every chapter: later ones read earlier notebooks' results
        shutil.copy2(path, root / "chapters" / path.name)
    (root / "models").mkdir(exist_ok=True)
    for name, source in (("data", data), ("benchmarks", data.parent / "benchmarks")):  # read, never written
        if source.is_dir() and not (root / name).exists():
            (root / name).symlink_to(source, target_is_directory=True)
    print(f"word2bert: smoke run (gpu shapes, ci amounts) in {root}", file=sys.stderr)
    runs = [(path, "tensorflow", root / "runs" / "gpu") for path in chapters]
    runs += [(path, "jax", root / "runs" / "gpu-jax") for path in chapters
             if path.stem.startswith("09_") and jax_devices > 1]
    records, lines, failed = [], [], []
    # a handful of steps learns little: the notebooks' asserts on learned results are off in the kernels (python -O
    # drops assert statements); every error a cell raises still fails the chapter
    with _environment(W2B_SMOKE="1", PYTHONOPTIMIZE="1"):
        for path, backend, out_dir in runs:
            devices = ({"XLA_FLAGS": f"--xla_force_host_platform_device_count={int(jax_devices)}"}
                       if backend == "jax" else {})
            out_dir.mkdir(parents=True, exist_ok=True)
            started = time.time()
            try:
                with _environment(KERAS_BACKEND=backend, **devices):
                    records.append(run_chapter(root / "chapters" / path.name, out_dir, "gpu"))
                outcome = "passed"
            except ChapterError as err:
                failed.append(f"{path.stem} ({backend})")
                outcome = "FAILED: " + str(err).splitlines()[0]
            lines.append(f"| {path.stem} | {backend} | {(time.time() - started) / 60:.1f} | {outcome} |")
            print(lines[-1], file=sys.stderr)
    table = "| chapter | backend | minutes | outcome |\n|---|---|---|---|\n" + "\n".join(lines)
    atomic_write(root / "runs" / "smoke.md", table + "\n")
    print(table)
    if failed:
        raise ChapterError(f"smoke run: {', '.join(failed)} failed; the executed notebooks are in {root / 'runs'}")
    return records


def committed_table(chapters_dir="chapters", ci_results="runs/ci/results.json") -> str:
    """Every metric of every committed run (the website's results page): each chapter's topic, run and results.

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
