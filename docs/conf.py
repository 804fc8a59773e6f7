"""Sphinx configuration of the documentation site (`docs/`).

Build it with `python -m sphinx -W -b html docs runs/docs` (the `docs`
extra: `pip install -e ".[docs]"`); `tests/test_docs_site.py` runs the same build in
the test suite. Pages are Markdown (MyST-Parser), the theme is furo, and the API
reference (`api/`, generated at every build by `_ext/kanaloa_api.py`) comes from the
package's docstrings, which are Markdown too.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))  # this checkout's kanaloa_env, installed or not
sys.path.insert(0, str(DOCS / "_ext"))

import kanaloa_env  # noqa: E402

project = "kanaloa_env"
author = "kanaloa_env contributors"
copyright = "2026, kanaloa_env contributors"
release = kanaloa_env.__version__
version = release

extensions = ["myst_parser", "sphinx.ext.autodoc", "kanaloa_api"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
# data/: the baselines' CSV files; _build: a local build inside docs/.
exclude_patterns = ["_build", "data", "_ext"]

# MyST: `#heading-anchors` to level 3 are link targets, so `[x](page.md#a-heading)` is
# checked like the page itself; a link to a missing page, file or anchor is a warning,
# and the build treats warnings as errors (-W).
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

# autodoc: import the package without its optional heavy dependencies and show members in
# the order of the source; signatures carry the type hints.
# A module of the package that imports an optional dependency (the train, web, rllib or
# gpu extras) is documented from a mock of it where it is not installed, so the `docs`
# extra alone builds the site; where it is installed, from the real thing.
OPTIONAL = ["ray", "torch", "stable_baselines3", "sb3_contrib", "starlette", "uvicorn", "pyspiel"]


def _missing(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is None
    except ImportError:
        return True


autodoc_mock_imports = [m for m in OPTIONAL if _missing(m)]
autodoc_member_order = "bysource"
autoclass_content = "class"  # with its own __init__ docstring: _ext/kanaloa_api.py
autodoc_typehints = "signature"
autodoc_preserve_defaults = True

html_theme = "furo"
html_title = f"kanaloa_env {release}"
html_static_path: list[str] = []
# A docstring inherited from numpy, numba or gymnasium is theirs (and reST): not shown.
autodoc_inherit_docstrings = False
# The functions and classes are not entries of the pages' tables of contents: with them,
# every page's navigation held all ~1,000 objects and the build took twice as long.
toc_object_entries = False
