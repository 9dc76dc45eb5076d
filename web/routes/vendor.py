"""What the pages load from the app itself and nowhere else: Plotly's JavaScript (its
vendored partial bundle, web.assets) and the Swagger UI of ``/docs`` (from the installed
swagger-ui-bundle package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from fastapi import APIRouter
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from web.assets import asset_url, plotly_bundle

router = APIRouter(include_in_schema=False)

_CACHE = {"Cache-Control": "public, max-age=86400"}


def _package_dir(name: str) -> Path:
    # Found without importing the package: plotly's import alone takes a third of a second.
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"the {name} package is not installed")
    return Path(spec.origin).resolve().parent


def _swagger_dir() -> Path:
    # swagger_ui_bundle/vendor/swagger-ui-<version>/: whichever version is installed.
    found = sorted((_package_dir("swagger_ui_bundle") / "vendor").glob("swagger-ui-*"))
    if not found:
        raise RuntimeError("swagger-ui-bundle holds no swagger-ui")
    return found[-1]


_SWAGGER_FILES = {"swagger-ui-bundle.js", "swagger-ui.css"}


@router.get("/static/vendor/plotly.min.js")
def plotly_js() -> RedirectResponse:
    # The old address: Plotly is served compressed under its content-hashed name.
    return RedirectResponse(asset_url(plotly_bundle()), status_code=307)


@router.get("/static/vendor/swagger/{name}")
def swagger_file(name: str) -> Response:
    if name not in _SWAGGER_FILES:
        return Response(status_code=404)
    kind = "text/css" if name.endswith(".css") else "text/javascript"
    return FileResponse(_swagger_dir() / name, media_type=kind, headers=_CACHE)


_BACK = ('<nav aria-label="domino-ledger" style="padding:.6rem 1.2rem;background:#1d3b2a;'
         'font:600 1rem system-ui,sans-serif"><a id="back-to-app" href="/matches" '
         'style="color:#e9f1ec;text-decoration:none">&larr; domino-ledger</a></nav>')


@router.get("/docs")
def docs() -> HTMLResponse:
    page = get_swagger_ui_html(
        openapi_url="/openapi.json", title="domino-ledger API",
        swagger_js_url="/static/vendor/swagger/swagger-ui-bundle.js",
        swagger_css_url="/static/vendor/swagger/swagger-ui.css",
        swagger_favicon_url="/static/favicon.svg",
        swagger_ui_parameters={"validatorUrl": None})
    # Swagger's page has no way back to the app (issue 16): a bar above it has one.
    html = bytes(page.body).decode().replace("<body>", "<body>" + _BACK, 1)
    return HTMLResponse(html)
