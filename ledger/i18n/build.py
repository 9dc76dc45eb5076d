"""Keep the catalogs in step with the code: extract, update, compile, check.

    python -m ledger.i18n.build            # extract + update every .po + compile the .mo
    python -m ledger.i18n.build check      # what is missing or stale (exit 1 if anything)

Extraction follows ``babel.cfg`` (the same file ``pybabel extract -F`` takes): the
ledger's and web's Python, and web's Jinja2 templates.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

from ledger.i18n.catalog import DOMAIN, LOCALE_DIR, SUPPORTED, compile_po, mo_path, po_path

ROOT = Path(__file__).resolve().parents[2]
CFG = Path(__file__).parent / "babel.cfg"
POT = LOCALE_DIR / f"{DOMAIN}.pot"
TRANSLATED = tuple(lang for lang in SUPPORTED if lang != "en")
# gettext's plural rules where Babel's (CLDR's) differ: CLDR gives Portuguese and Spanish
# a third form for millions that gettext's tools do not know; Brazilian Portuguese says
# "0 pedra" (one form for 0 and 1).
PLURAL_FORMS = {"pt": "nplurals=2; plural=(n > 1);", "es": "nplurals=2; plural=(n != 1);"}
# The slots of a sentence: "{name}" (the ledger's templates) and "%(name)s" (the web
# pages' Jinja2 templates, as Babel extracts them from {% trans %} and _()).
_SLOT = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}|(?<!%)%\(([A-Za-z_][A-Za-z0-9_]*)\)[sd]")
# The number a plural form is chosen by: a form may leave it out ("one tile").
_COUNTS = frozenset({"count", "num"})


def extract(root: Path = ROOT) -> Catalog:
    """Every msgid of the code, as babel.cfg says where to look."""
    with CFG.open() as fh:
        method_map, options_map = parse_mapping_cfg(fh, str(CFG))  # type: ignore[no-untyped-call]
    template = Catalog(project="domino-ledger", charset="utf-8", fuzzy=False)
    found = extract_from_dir(str(root), method_map, options_map, keywords=DEFAULT_KEYWORDS,
                             comment_tags=("Translators:",), strip_comment_tags=True)
    for filename, lineno, message, comments, context in found:
        template.add(message, None, [(filename, lineno)], auto_comments=comments,
                     context=context)
    return template


def read(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        catalog = Catalog(locale=lang, domain=DOMAIN, project="domino-ledger",
                          charset="utf-8", fuzzy=False)
    else:
        with path.open("rb") as fh:
            catalog = read_po(fh, locale=lang, domain=DOMAIN)
    if lang in PLURAL_FORMS:
        catalog.mime_headers = [("Plural-Forms", PLURAL_FORMS[lang])]
    return catalog


def _po_bytes(catalog: Catalog, **options: bool) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, sort_output=True, width=100, **options)
    return out.getvalue()


def update(template: Catalog) -> None:
    """Write the .pot and merge it into every language's .po (translations kept)."""
    POT.parent.mkdir(parents=True, exist_ok=True)
    POT.write_bytes(_po_bytes(template, omit_header=False))
    for lang in TRANSLATED:
        catalog = read(lang)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        path = po_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_po_bytes(catalog, no_location=True, ignore_obsolete=True))


def compile_all() -> None:
    for lang in TRANSLATED:
        mo_path(lang).write_bytes(compile_po(po_path(lang)))


def slots(text: str) -> set[str]:
    return {brace or percent for brace, percent in _SLOT.findall(text)}


def _forms(message: Message) -> list[str]:
    string = message.string
    if isinstance(string, (list, tuple)):
        return [s or "" for s in string]
    return [string or ""]


def problems(template: Catalog, langs: Iterable[str] = TRANSLATED) -> list[str]:
    """Every msgid without a translation, with the wrong {slots}, or fuzzy; every .mo that
    is not the compiled .po."""
    out: list[str] = []
    for lang in langs:
        catalog = read(lang)
        for msg in template:
            if not msg.id:
                continue
            ids = msg.id if isinstance(msg.id, (list, tuple)) else (msg.id,)
            have = catalog.get(ids[0], context=msg.context)
            label = f"{lang}: {ids[0]!r}" + (f" ({msg.context})" if msg.context else "")
            if have is None:
                out.append(f"{label}: missing")
                continue
            forms = _forms(have)
            expected = catalog.num_plurals if len(ids) > 1 else 1
            if len(forms) < expected or not all(f.strip() for f in forms[:expected]):
                out.append(f"{label}: not translated")
                continue
            if have.fuzzy:
                out.append(f"{label}: fuzzy")
            wanted = slots(ids[-1]) | slots(ids[0])
            for form in forms:
                # A plural form may leave out its count ("one tile"), never add or rename.
                if not slots(form) <= wanted or not (slots(ids[0]) - _COUNTS) <= slots(form):
                    out.append(f"{label}: slots {sorted(slots(form))} != {sorted(wanted)}")
                    break
        mo = mo_path(lang)
        if not mo.exists() or mo.read_bytes() != compile_po(po_path(lang)):
            out.append(f"{lang}: {mo.name} is not the compiled .po: run python -m "
                       "ledger.i18n.build")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    template = extract()
    if args[:1] == ["check"]:
        found = problems(template)
        for line in found:
            print(line)
        print(f"{len(template)} messages; {len(found)} problems", file=sys.stderr)
        return 1 if found else 0
    update(template)
    compile_all()
    print(f"{len(template)} messages extracted; catalogs updated and compiled", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
