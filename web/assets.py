"""The files the pages load, under content-hashed names: compressed once, cached for good.

``asset_url("js/chart.js")`` is ``/assets/<digest>/js/chart.js``, the digest that of
the file's bytes, so a browser may keep it for a year without asking again: new bytes
get a new name. Each file is read, hashed and gzipped once (kept in memory) and sent
gzipped to every client that accepts it; a file with a ``.gz`` beside it holding the same
bytes (the vendored Plotly bundle) is sent as that, compressed ahead of time.
Everything comes from this machine: the static folder and Plotly's own package file.

The charts use Plotly's "basic" partial bundle (scatter and bar, 1.2 MB, 0.39 MB gzipped;
its README.md in web/static/vendor/plotly_basic/ says where it came from).
``DOMINO_LEDGER_PLOTLY=full`` serves the whole plotly.min.js of the installed plotly
package instead (4.8 MB, 1.4 MB gzipped), to compare the two (benchmarks/web.py).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from fastapi import APIRouter, Request, Response
from fastapi.responses import RedirectResponse

STATIC_DIR = Path(__file__).resolve().parent / "static"
router = APIRouter(include_in_schema=False)

FOREVER = "public, max-age=31536000, immutable"
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
          ".svg": "image/svg+xml"}


def _package_file(package: str, *parts: str) -> Path:
    # Found without importing the package: plotly's import alone takes a third of a second.
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"the {package} package is not installed")
    return Path(spec.origin).resolve().parent.joinpath(*parts)


# Files that live outside the static folder, by the name the pages give them.
_VENDOR = {"vendor/plotly.min.js": lambda: _package_file("plotly", "package_data",
                                                          "plotly.min.js")}

PLOTLY_ENV = "DOMINO_LEDGER_PLOTLY"  # "full": the whole plotly.min.js, else the partial bundle
PLOTLY_BASIC = "vendor/plotly_basic/plotly-basic.min.js"  # scatter and bar: all the charts draw
PLOTLY_FULL = "vendor/plotly.min.js"


def plotly_bundle() -> str:
    """The name of the Plotly script the pages load (read each time: a benchmark switches)."""
    return PLOTLY_FULL if os.environ.get(PLOTLY_ENV, "").strip() == "full" else PLOTLY_BASIC


@dataclass(frozen=True)
class Asset:
    name: str
    digest: str
    media_type: str
    raw: bytes
    gzipped: bytes

    @property
    def url(self) -> str:
        return f"/assets/{self.digest}/{self.name}"


def _source(name: str) -> Path | None:
    if name in _VENDOR:
        return _VENDOR[name]()
    path = (STATIC_DIR / name).resolve()
    if not path.is_relative_to(STATIC_DIR.resolve()) or not path.is_file():
        return None
    return path


@cache
def asset(name: str) -> Asset | None:
    """The file the pages call ``name`` ("js/chart.js", "vendor/plotly.min.js"), or None."""
    path = _source(name)
    if path is None or path.suffix not in _TYPES:
        return None
    raw = path.read_bytes()
    return Asset(name, hashlib.sha256(raw).hexdigest()[:16], _TYPES[path.suffix], raw,
                 _gzipped(path, raw))


def _gzipped(path: Path, raw: bytes) -> bytes:
    # A .gz kept beside the file is sent as it is, once it is known to hold the same bytes
    # (unpacking is 30 times quicker than packing at 9); a stale one is packed anew.
    ready = path.with_name(path.name + ".gz")
    if ready.is_file():
        packed = ready.read_bytes()
        if gzip.decompress(packed) == raw:
            return packed
    return gzip.compress(raw, compresslevel=9, mtime=0)


def asset_url(name: str) -> str:
    """The content-hashed address of a file the pages load (a Jinja2 global)."""
    found = asset(name)
    if found is None:
        raise LookupError(f"no static file {name!r}")
    return found.url


@router.get("/assets/{digest}/{name:path}")
def serve(digest: str, name: str, request: Request) -> Response:
    found = asset(name)
    if found is None:
        return Response(status_code=404)
    if digest != found.digest:  # a page from before the file changed: the file as it is now
        return RedirectResponse(found.url, status_code=307)
    headers = {"Cache-Control": FOREVER, "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        headers["Content-Encoding"] = "gzip"
        return Response(found.gzipped, media_type=found.media_type, headers=headers)
    return Response(found.raw, media_type=found.media_type, headers=headers)
