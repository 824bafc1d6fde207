"""The site's Sphinx source, made from the committed chapters: ``python -m word2bert.course.site.pages ROOT SRC``.

Runs inside the site's environment (it needs nbformat, which myst-nb brings), with ``lib/`` on ``PYTHONPATH``.
It writes into ``SRC``:

- ``chapters/NN_name.ipynb``: each chapter as committed, outputs untouched, with two build-time changes: the
  ``# NBVAL_*`` marker lines leave the code (they become cell tags, which the page does not show), and a box
  after the title links every library name the chapter imports to its API page; the same names written as code
  in the prose (written as inline code) link there too.
- ``index.md``: the chapter table with headline results and minutes, generated from the ``W2B_RESULTS`` lines;
- ``results.md``: what each chapter found, and every metric of every committed run (``python -m word2bert table``);
- the hand-written pages under ``pages/`` beside this file (running the course, CI's minutes, benchmarks, the
  library's layout).
"""
from __future__ import annotations

import ast
import copy
import re
import shutil
import sys
from pathlib import Path

from word2bert.course.runner import committed_table, find_chapters, results_of

PAGES = Path(__file__).resolve().parent / "pages"
LIB = Path(__file__).resolve().parents[2]  # lib/word2bert
MARKER = re.compile(r"^[ \t]*#[ \t]*(NBVAL_[A-Z_]+)[ \t]*$", re.M)

# One to three numbers per chapter for the index: (metric key in W2B_RESULTS, what it is, format).
HEADLINES = {
    "01": [("ppl_test_kn5", "PTB test perplexity, Kneser-Ney 5-gram", ".1f"),
           ("ppl_test_lstm", "LSTM 2×200", ".1f")],
    "02": [("ws353_rho_skipgram_softmax", "WordSim-353 ρ, skip-gram with the full softmax", ".3f"),
           ("ws353_rho_cbow_softmax", "CBOW", ".3f")],
    "03": [("ws353_sg_ns_ours", "WordSim-353 ρ, skip-gram with negative sampling: ours", ".3f"),
           ("ws353_sg_ns_gensim", "gensim", ".3f"),
           ("throughput_ratio_sg_ns", "our speed / gensim's", ".2f")],
    "04": [("glove_wordsim_rho", "WordSim-353 ρ, GloVe", ".3f"),
           ("lsa_ppmi_wordsim_rho", "LSA on PPMI", ".3f"),
           ("word2vec_wordsim_rho", "word2vec (gensim)", ".3f")],
    "05": [("bleu_test_greedy", "test BLEU, GRU encoder-decoder without attention", ".2f"),
           ("bleu_test_lookup", "nearest-verse lookup", ".2f")],
    "06": [("bleu_test_chosen_beam", "test BLEU, the attention model chosen on validation, with beam search", ".2f"),
           ("bleu_test_chosen_greedy", "greedy", ".2f"),
           ("bleu_test_none_greedy", "no attention", ".2f")],
    "07": [("oov_words_wiki_8000", "held-out Wikipedia words unknown with 8,000 tokens: word vocabulary", ".2%"),
           ("oov_wordpiece_wiki_8000", "WordPiece", ".3%")],
    "08": [("bleu_test_transformer_beam", "test BLEU after 6 CPU minutes, Transformer with beam search", ".2f"),
           ("bleu_test_gru_beam", "GRU with attention", ".2f"),
           ("decode_speedup", "key/value cache speed-up", ".1f")],
    "09": [("mlm_accuracy", "masked pieces guessed right", ".1%"),
           ("nsp_accuracy", "next-sentence accuracy", ".3f")],
    "10": [("polarity_reference_finetuned", "sentence polarity, all-MiniLM-L6-v2 fine-tuned on every label", ".3f"),
           ("polarity_baseline", "bag of words", ".3f"),
           ("qa_reference_finetuned", "template QA F1, fine-tuned", ".3f")],
    "11": [("probe_pos_reference_layer2", "part-of-speech probe, all-MiniLM-L6-v2 block 2 of 6", ".3f"),
           ("probe_pos_ours_layer2", "chapter 09's BERT, last block", ".3f"),
           ("baseline_pos", "most frequent tag", ".3f")],
    "12": [("gpt_ptb_test_ppl", "PTB test perplexity, GPT 2×128", ".1f"),
           ("pos_GPT_pretrained", "part of speech after 120 s of pretraining, GPT", ".3f")],
}


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def chapter_title(nb, default: str) -> str:
    """The first markdown heading of a notebook without its number ("01 · Language models" gives "Language models");
    ``default`` when it has none."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and _source(cell).lstrip().startswith("#"):
            heading = re.sub(r"^#+\s*", "", _source(cell).lstrip().splitlines()[0]).strip()
            return re.sub(r"^\d+\s*[·:—-]\s*", "", heading)  # "01 · Language models" -> "Language models"
    return default


def _is_module(path: str) -> bool:
    """Whether ``word2bert.x.y`` names a module or package of the library (read from the files, not imported)."""
    parts = path.split(".")[1:]
    return bool(parts) and (LIB.joinpath(*parts).with_suffix(".py").is_file() or LIB.joinpath(*parts).is_dir())


def _public_names(module: str) -> set[str]:
    """The names a library module offers, read from its source: its ``__all__``, else its top-level definitions."""
    parts = module.split(".")[1:]
    path = LIB.joinpath(*parts)
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return {elt.value for elt in getattr(node.value, "elts", []) if isinstance(elt, ast.Constant)}
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.Assign):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
    return found


def library_names(nb) -> dict[str, str]:
    """Every library name a notebook's code uses: ``{name: "word2bert.module.name"}``, in order of first use.

    Names imported from word2bert (``from word2bert.models.word2vec import SkipGram``), and attributes read from an
    imported library module that the module offers (its ``__all__``, read from the source: ``w2v.SkipGram`` after
    ``from word2bert.models import word2vec as w2v`` gives both ``SkipGram`` and ``w2v.SkipGram``). Cells that are not
    Python (``%`` magics, ``!`` shell lines) are parsed without those lines; a cell that still does not parse is
    skipped.
    """
    names: dict[str, str] = {}
    modules: dict[str, str] = {}
    trees = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        code = "\n".join(line for line in _source(cell).splitlines() if not line.lstrip().startswith(("%", "!")))
        try:
            trees.append(ast.parse(code))
        except SyntaxError:
            continue
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "word2bert":
                for alias in node.names:
                    if alias.name != "*" and not alias.name.startswith("_"):
                        target = f"{node.module}.{alias.name}"
                        names.setdefault(alias.asname or alias.name, target)
                        if _is_module(target):
                            modules[alias.asname or alias.name] = target
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("word2bert.") and alias.asname and _is_module(alias.name):
                        modules[alias.asname] = alias.name
    offered = {alias: _public_names(module) for alias, module in modules.items()}
    for tree in trees:
        for node in ast.walk(tree):
            # an attribute the module offers: a variable that shadows the module's name (metrics.update) is not
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                    and node.attr in offered[node.value.id]):
                target = f"{modules[node.value.id]}.{node.attr}"
                names.setdefault(node.attr, target)
                names.setdefault(f"{node.value.id}.{node.attr}", target)
    return names


def _link(match, names: dict[str, str]) -> str:
    name, call = match.group(1), match.group(2) or ""
    target = names.get(name) or (name if name.startswith("word2bert.") else None)
    return f"{{py:obj}}`{name}{call} <{target}>`" if target else match.group(0)


def _link_code_names(text: str, names: dict[str, str]) -> str:
    """Turn a name written as inline code into a link to Name's API page, outside fenced blocks and math."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced and "`" in line:
            line = re.sub(r"(?<![`{\w])`([A-Za-z_][\w.]*)(\(\))?`(?!`)",
                          lambda m: _link(m, names), line)
        out.append(line)
    return "\n".join(out)


def filter_chapter(nb):
    """A copy of a chapter made for the page: markers out of the code, library names linked.

    Args:
        nb: an nbformat v4 notebook (not changed).

    Returns:
        The new notebook. Code cells lose their ``# NBVAL_*`` lines (kept as cell tags); in markdown cells each
        library name the chapter uses (``library_names``), or any ``word2bert.`` path, written as inline code links
        to its API page; a markdown cell listing those names follows the title cell.
    """
    import nbformat

    nb = copy.deepcopy(nb)
    names = library_names(nb)
    for cell in nb.cells:
        src = _source(cell)
        if cell.cell_type == "code":
            markers = MARKER.findall(src)
            if markers:
                cell.source = MARKER.sub("", src).strip("\n")
                tags = cell.metadata.setdefault("tags", [])
                tags.extend(m for m in markers if m not in tags)
        elif cell.cell_type == "markdown" and names:
            cell.source = _link_code_names(src, names)
    if names:
        shown = {}
        for name, target in names.items():  # one entry a target, under its plain name (not "w2v.SkipGram")
            if "." not in name:
                shown.setdefault(target, name)
        links = " · ".join(f"{{py:obj}}`{name} <{target}>`" for target, name in shown.items())
        box = nbformat.v4.new_markdown_cell(
            "```{admonition} The library code this chapter uses\n:class: w2b-library\n\n"
            f"{links}\n```")
        first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"), -1)
        nb.cells.insert(first + 1, box)
    return nb


def _headline(number: str, metrics: dict) -> str:
    parts = []
    for key, label, fmt in HEADLINES.get(number, []):
        if key in metrics and isinstance(metrics[key], (int, float)):
            parts.append(f"{label} **{format(metrics[key], fmt)}**")
    return "; ".join(parts)


def index_page(chapters: list[tuple[Path, object]]) -> str:
    """The site's front page: what the course is, the table of chapters (generated), the table of contents."""
    rows = ["| chapter | topic | headline results (committed run) | minutes | run |", "|---|---|---|---|---|"]
    for path, nb in chapters:
        number = path.stem.split("_")[0]
        found = results_of(nb)
        title = chapter_title(nb, path.stem)
        if not found:
            rows.append(f"| [{number}](chapters/{path.stem}.ipynb) | {title} | not run yet | | |")
            continue
        r = found[-1]
        rows.append(f"| [{number}](chapters/{path.stem}.ipynb) | {title} | {_headline(number, r['metrics'])} | "
                    f"{r['seconds'] / 60:.1f} | {r['profile']}, {r['backend']} / {r['device']} |")
    toc = "\n".join(f"chapters/{path.stem}" for path, _ in chapters)
    return f"""# word2bert

A course in numbered Jupyter chapters from n-gram **language models** through **word2vec**, **GloVe**, **seq2seq
with attention** and the **Transformer** to **BERT**, on one tested Keras 3 library (`word2bert`). Every chapter
runs on real, offline data and prints its measured results; the pages here show the chapters as committed, with
their outputs and plots, and each chapter links the library code it uses to its page in the
[API reference](api/word2bert/index).

## Chapters and measured results

Numbers from each chapter's `W2B_RESULTS` line in the committed notebook; minutes are the wall-clock minutes of
that run (2 CPU cores for the `cpu` profile). [Results](results.md) has what each chapter found in words and every
metric of every run.

{chr(10).join(rows)}

```{{toctree}}
:caption: Chapters
:maxdepth: 1
:hidden:

{toc}
```

```{{toctree}}
:caption: Reference
:maxdepth: 1

results
running
benchmarks
library
API reference <api/word2bert/index>
```
"""


def results_page(chapters_dir: Path) -> str:
    """What each chapter found (hand-written, ``pages/findings.md``) and every metric of every committed run."""
    findings = (PAGES / "findings.md").read_text(encoding="utf-8")
    return f"""# Results

{findings}

## Every metric of every committed run

The table `python -m word2bert table` prints: each chapter's `W2B_RESULTS` line in the committed notebook, every
metric as printed.

```{{container}} w2b-metrics
{committed_table(chapters_dir)}
```
"""


def prepare_source(root: str | Path, src: str | Path) -> Path:
    """Write the site's Sphinx source folder ``src`` (emptied first) from the repository at ``root``.

    Returns:
        Path of ``src``.

    Raises:
        FileNotFoundError: no chapters under ``root``, or a page under ``pages/`` is missing.
    """
    import nbformat

    root, src = Path(root), Path(src)
    chapters_dir = root / "chapters"
    chapters = [(p, nbformat.read(p, as_version=4)) for p in find_chapters(chapters_dir)]
    shutil.rmtree(src, ignore_errors=True)
    (src / "chapters").mkdir(parents=True)
    for path, nb in chapters:
        nbformat.write(filter_chapter(nb), src / "chapters" / path.name)
    (src / "index.md").write_text(index_page(chapters), encoding="utf-8")
    (src / "results.md").write_text(results_page(chapters_dir), encoding="utf-8")
    for name in ("running.md", "benchmarks.md", "library.md"):
        shutil.copyfile(PAGES / name, src / name)
    return src


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m word2bert.course.site.pages ROOT SRC")
    prepare_source(sys.argv[1], sys.argv[2])
