"""Reading the manuscript source (paper/main.typ) the way a reader sees it: its prose, without
comments, code, raw text, math, labels and references; its headings; its figures and tables.

A small scanner of Typst markup, enough for this manuscript: in markup, ``#`` starts code
(``#let``/``#set``/``#show``/``#import`` statements to the end of the line, ``#if``/``#for``
with their blocks, function calls with their arguments and trailing content blocks); in code,
strings and arguments are skipped but content blocks (``[...]``, e.g. a caption) are markup
again, so the prose of captions and templates is scanned too. The result is a *mask*: the
source with every character that is not prose replaced by a space (newlines kept), so offsets
and line numbers stay those of the source.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

from pypdf import PdfReader

_IDENT = re.compile(r"[A-Za-z_][\w-]*")
_LABEL = re.compile(r"<[\w\-.:]+>")
_REF = re.compile(r"@[\w\-.:]*[\w\-]")
_STATEMENTS = {"let", "set", "show", "import", "include"}
_CONTROL = {"if", "while", "for"}


class _Scanner:
    def __init__(self, src: str):
        self.s = src
        self.prose = [False] * len(src)
        self.branches: list[tuple[int, int]] = []  # the blocks of #if/#for/#while (start, end)

    # -- markup ---------------------------------------------------------------------------
    def markup(self, i: int, closing: bool) -> int:
        """Scan markup from ``i``; with ``closing``, until the ``]`` that closes the block (the
        returned index is after it)."""
        s, depth = self.s, 0
        line_start = True
        while i < len(s):
            c = s[i]
            if line_start:
                m = re.match(r"[ \t]*(?:\d+\.|[-+])[ \t]", s[i:])  # list and enumeration markers
                if m:
                    i += m.end()
                    line_start = False
                    continue
            line_start = c == "\n"
            if c == "\\":
                i += 2
            elif s.startswith("//", i):
                i = self._line_end(i)
            elif s.startswith("/*", i):
                i = self._block_comment_end(i)
            elif c == "`":
                i = self._raw_end(i)
            elif c == "$":
                i = self._math_end(i)
            elif c == "<" and (m := _LABEL.match(s, i)):
                i = m.end()
            elif c == "@" and (m := _REF.match(s, i)):
                i = m.end()
            elif c == "#":
                i = self.hash_expr(i + 1)
            elif c == "[":
                depth += 1
                self.prose[i] = True
                i += 1
            elif c == "]":
                if closing and depth == 0:
                    return i + 1
                depth -= 1
                self.prose[i] = True
                i += 1
            else:
                self.prose[i] = True
                i += 1
        return i

    # -- code -----------------------------------------------------------------------------
    def hash_expr(self, i: int) -> int:
        """An embedded code expression after ``#``."""
        s = self.s
        if i >= len(s):
            return i
        if s[i] in "([{":
            return self.postfix(self.block(i))
        m = _IDENT.match(s, i)
        if not m:
            return i
        word, i = m.group(), m.end()
        if word in _STATEMENTS:
            return self.statement(i)
        if word in _CONTROL:
            return self.control(i)
        if word == "context":
            j = self._skip_spaces(i)
            return self.hash_expr(j)
        return self.postfix(i)

    def postfix(self, i: int) -> int:
        """Field accesses, calls and trailing content blocks right after an expression."""
        s = self.s
        while i < len(s):
            if s[i] in "([":
                i = self.block(i)
            elif s[i] == "." and (m := _IDENT.match(s, i + 1)):
                i = m.end()
            else:
                break
        return i

    def block(self, i: int) -> int:
        """``(...)`` or ``{...}`` (code) or ``[...]`` (markup) starting at ``i``."""
        opener = self.s[i]
        if opener == "[":
            return self.markup(i + 1, closing=True)
        return self.code(i + 1, ")" if opener == "(" else "}")

    def code(self, i: int, closer: str | None) -> int:
        """Code until ``closer`` (returned index after it); with ``closer`` None, until the end
        of the line at depth 0 (a statement)."""
        s = self.s
        while i < len(s):
            c = s[i]
            if closer is None and c == "\n":
                return i
            if c == closer:
                return i + 1
            if c == '"':
                i = self._string_end(i)
            elif s.startswith("//", i):
                i = self._line_end(i)
            elif s.startswith("/*", i):
                i = self._block_comment_end(i)
            elif c == "`":
                i = self._raw_end(i)
            elif c == "$":
                i = self._math_end(i)
            elif c in "([{":
                i = self.block(i)
            else:
                i += 1
        return i

    def statement(self, i: int) -> int:
        return self.code(i, None)

    def control(self, i: int) -> int:
        """``if``/``for``/``while``: the condition up to the first block, the block, then any
        ``else if`` / ``else`` branches."""
        s = self.s
        while True:
            while i < len(s) and s[i] not in "[{":
                if s[i] == '"':
                    i = self._string_end(i)
                elif s[i] == "(":
                    i = self.block(i)
                else:
                    i += 1
            if i >= len(s):
                return i
            start, i = i, self.block(i)
            self.branches.append((start, i))
            j = self._skip_spaces(i)
            if not s.startswith("else", j):
                return i
            j = self._skip_spaces(j + 4)
            if s.startswith("if", j) and not _IDENT.match(s, j + 2):
                i = j + 2
                continue
            if j < len(s) and s[j] in "[{":
                end = self.block(j)
                self.branches.append((j, end))
                return end
            return j

    # -- tokens ---------------------------------------------------------------------------
    def _skip_spaces(self, i: int) -> int:
        while i < len(self.s) and self.s[i] in " \t\n":
            i += 1
        return i

    def _line_end(self, i: int) -> int:
        j = self.s.find("\n", i)
        return len(self.s) if j < 0 else j

    def _block_comment_end(self, i: int) -> int:
        j = self.s.find("*/", i + 2)
        return len(self.s) if j < 0 else j + 2

    def _string_end(self, i: int) -> int:
        i += 1
        while i < len(self.s) and self.s[i] != '"':
            i += 2 if self.s[i] == "\\" else 1
        return i + 1

    def _raw_end(self, i: int) -> int:
        n = len(self.s[i:]) - len(self.s[i:].lstrip("`"))
        if n == 2:  # an empty raw text
            return i + 2
        fence = "`" * (3 if n >= 3 else 1)
        j = self.s.find(fence, i + len(fence))
        return len(self.s) if j < 0 else j + len(fence)

    def _math_end(self, i: int) -> int:
        i += 1
        while i < len(self.s) and self.s[i] != "$":
            i += 2 if self.s[i] == "\\" else 1
        return i + 1


def prose_mask(src: str) -> str:
    """The source with every character that is not prose replaced by a space (newlines kept)."""
    scanner = _Scanner(src)
    scanner.markup(0, closing=False)
    return "".join(c if keep or c == "\n" else " " for c, keep in zip(src, scanner.prose))


# -- numeric literals in prose --------------------------------------------------------------

NUMBER = re.compile(r"(?<![\w])\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class Allowed:
    name: str
    pattern: re.Pattern
    why: str


#: The explicit allow-list: a number inside a match of one of these is fine in prose.
ALLOWED = (
    Allowed(
        "citation year",
        re.compile(
            r"\bet al\.,?\s+(?:19|20)\d{2}[a-z]?\b|\((?:[A-Z][\w-]+(?: et al\.)?,?\s+)?"
            r"(?:19|20)\d{2}[a-z]?\)"
        ),
        "the year of a cited work is part of the citation",
    ),
    Allowed("arXiv id", re.compile(r"\barXiv[:\s]+\d{4}\.\d{4,5}(?:v\d+)?\b"), "an identifier, not a quantity"),
    Allowed("section reference", re.compile(r"\b(?:Sections?|§)\s*\d+(?:\.\d+)*"), "a cross-reference"),
    # The level of every interval of the paper is fixed in the code (the ``level=0.95`` default of
    # eibench.stats: percentile_interval, the mixed models, the model intervals) and documented in
    # docs/statistics.md; it is a method constant, neither a configured value nor a result.
    Allowed("interval level", re.compile(r"(?<![\w.])95\s*%"), "the fixed level of every interval (method constant)"),
)


@dataclass(frozen=True)
class Literal:
    line: int
    text: str
    source_line: str


def numeric_literals(src: str, allowed: tuple[Allowed, ...] = ALLOWED) -> list[Literal]:
    """Every numeric literal in the prose of ``src`` that no allow-list pattern covers."""
    mask = prose_mask(src)
    spans = [m.span() for a in allowed for m in a.pattern.finditer(mask)]
    lines = src.splitlines()
    found = []
    for m in NUMBER.finditer(mask):
        if any(lo <= m.start() and m.end() <= hi for lo, hi in spans):
            continue
        line = mask.count("\n", 0, m.start()) + 1
        found.append(Literal(line, m.group(), lines[line - 1].strip()))
    return found


# -- structure: headings, figures, tables, numbers -----------------------------------------


def headings(src: str) -> list[str]:
    """The text of every heading (``= ...`` lines and ``#heading(...)[...]``), as prose."""
    mask = prose_mask(src)
    out = [" ".join(m.group(1).split()) for m in re.finditer(r"(?m)^[ \t]*=+[ \t]+(.+)$", mask)]
    out += [m.group(1).strip() for m in re.finditer(r"#heading\([^)]*\)\[([^\]]+)\]", src)]
    return [h for h in out if h]


def _unconditional(src: str, pattern: str) -> int:
    """Matches of ``pattern`` outside any #if/#for/#while block (shown by every build)."""
    scanner = _Scanner(src)
    scanner.markup(0, closing=False)
    return sum(1 for m in re.finditer(pattern, src) if not any(lo <= m.start() < hi for lo, hi in scanner.branches))


def n_image_figures(src: str) -> int:
    """Figures every build shows (a figure inside an #if block, e.g. of a replication, is left out)."""
    return _unconditional(src, r"#figure\(\s*image\(")


def n_table_figures(src: str) -> int:
    """Tables every build shows: ``#figure(table(...))`` and calls of the manuscript's
    ``csv-table`` helper outside any #if block."""
    return _unconditional(src, r"#figure\(\s*table\(") + _unconditional(src, r"#csv-table\(")


#: The accessors of paper/main.typ that print or read one entry of numbers.json by its key (the
#: agreement helpers of paper/numbers.typ, count and agree, take the key first, then the words).
KEY_CALL = re.compile(r'\b(?:n|nraw|ci|N\.at|count|agree)\("([^"]+)"[,)]')


def unconditional_keys(src: str) -> set[str]:
    """The numbers.json keys that the source names outside any #if/#for/#while block: every
    build prints (or reads) them, so every numbers.json must have them."""
    scanner = _Scanner(src)
    scanner.markup(0, closing=False)
    return {m.group(1) for m in KEY_CALL.finditer(src) if not any(lo <= m.start() < hi for lo, hi in scanner.branches)}


def without_running_header(pages: list[str]) -> list[str]:
    """The pages' text without the running header (the first line, which names what the page is
    about and ends with the page number), so that a sentence split by a page break reads as one."""

    def has_header(k: int, text: str) -> bool:
        # The page number can follow the header's last word without a space ("... methods1").
        return "\n" in text and re.search(rf"\S.*(?<!\d){k}\s*$", text.split("\n", 1)[0]) is not None

    if len(pages) < 2 or not all(has_header(k, p) for k, p in enumerate(pages, start=1)):
        return pages
    return [p.split("\n", 1)[1] for p in pages]


def pdf_text(pdf: str | Path | bytes, running_header: bool = True) -> str:
    """The text of every page of a built PDF (a path, or the bytes ``typst.compile`` returns),
    the pages joined by a space; without the running header of each page when
    ``running_header`` is false (a sentence split by a page break then reads as one)."""
    source = io.BytesIO(pdf) if isinstance(pdf, bytes) else pdf
    pages = [page.extract_text() for page in PdfReader(source).pages]
    return " ".join(pages if running_header else without_running_header(pages))
