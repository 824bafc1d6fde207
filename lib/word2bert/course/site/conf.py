# Sphinx configuration of the course's website (``python -m word2bert site``).
#
# The source folder is made by word2bert.course.site (filtered copies of the committed chapters and the
# generated index and results pages); the API pages come from sphinx-autoapi, which parses lib/word2bert
# without importing it, so no deep-learning package is needed here. Nothing on a built page is fetched from
# another host: MathJax 3 is copied into the site by sphinx-mathjax-offline.
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIB = HERE.parents[1]  # lib/word2bert

project = "word2bert"
author = "the word2bert authors"
copyright = "the word2bert authors"

extensions = [
    "myst_nb",
    "autoapi.extension",
    "sphinx.ext.napoleon",
    "sphinx-mathjax-offline",
]

# the chapters as committed: their outputs come from timed runs, never from this build
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type"]

autoapi_type = "python"
autoapi_dirs = [str(LIB)]
autoapi_root = "api"
autoapi_ignore = ["*/course/site/conf.py"]
autoapi_options = ["members", "undoc-members", "show-inheritance", "show-module-summary", "imported-members"]
autoapi_add_toctree_entry = False
autoapi_keep_files = True  # the generated .rst stay in _build/site-src/api (warnings point there)
autoapi_member_order = "bysource"

napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True  # Attributes: sections as fields, not a second description of each attribute
napoleon_custom_sections = [("Call arguments", "params_style"), ("Reference", "notes_style"),
                            ("References", "notes_style"), ("Shapes", "notes_style")]

html_theme = "sphinx_book_theme"
html_title = "word2bert"
html_static_path = [str(HERE / "_static")]
html_css_files = ["site.css"]
html_favicon = str(HERE / "_static" / "favicon.svg")
html_context = {"default_mode": "light"}
html_theme_options = {
    "show_toc_level": 2,
    # the left sidebar lists the chapters and the packages, and opens only the current branch: rendering the whole
    # API tree into each of the 130 pages took 30 of the build's 45 seconds (27 s in all now)
    "max_navbar_depth": 2,
    "collapse_navbar": True,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "navigation_with_keys": False,
}
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None

exclude_patterns = ["_build", "**.ipynb_checkpoints", "jupyter_execute"]


def _library_links_only(app, env, node, contnode):
    """Warn (so -W fails the build) when a chapter's link to a library name finds no API page."""
    target = node.get("reftarget", "")
    in_chapter = node.get("refdoc", "").startswith("chapters/")
    if node.get("refdomain") == "py" and target.startswith("word2bert.") and in_chapter:
        from sphinx.util import logging

        logging.getLogger(__name__).warning("no API page for %s", target, location=node)
    return None


def _skip_reexported_exceptions(app, what, name, obj, skip, options):
    """An exception re-exported by a package is documented once, in its own module: a ``Raises:`` line that names
    it then links to one page instead of being ambiguous between two."""
    if not getattr(obj, "imported", False):
        return None
    if what == "exception":
        return True
    # a function re-exported under the name of a module of the same package (datasets.bible, text.normalize):
    # the module's page documents it; two objects with one name would collide
    parts = name.split(".")[1:]
    if parts and (LIB.joinpath(*parts).with_suffix(".py").is_file() or LIB.joinpath(*parts).is_dir()):
        return True
    return None


def setup(app):
    app.connect("missing-reference", _library_links_only)
    app.connect("autoapi-skip-member", _skip_reexported_exceptions)
