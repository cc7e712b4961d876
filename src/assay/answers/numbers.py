"""Find the numbers an answer states and check them against official values.

Reading rules (English, French, Spanish; see ``tests/answers/test_answers_numbers.py``):

* Separators. Spaces (also no-break and narrow no-break) and ``'`` group
  thousands. With both ``,`` and ``.`` the last one is the decimal separator
  (``1,234.5``, ``1.234,5``). A separator repeated is grouping (``1,234,567``).
  A single separator followed by other than three digits is decimal (``7,6``,
  ``7.63``). A single separator followed by exactly three digits is resolved by
  the answer's language: in English (and when unknown) ``,`` groups and ``.`` is
  decimal; in French, Spanish and other decimal-comma languages ``,`` is
  decimal and ``.`` groups (``1,234`` is 1.234 in French). ``0,123`` is always
  decimal. ``.5`` reads 0.5.
* Signs: ``-`` and the Unicode minus ``−`` (and ``–`` when it does not join two
  numbers) make a number negative when they start a word; between two numbers a
  dash is a range (``5–7 %``); after a letter it is part of a word
  (``under-5``, ``COVID-19``) and the number is skipped.
* Percent: ``%``, ``percent``, ``per cent``, ``pour cent``, ``por ciento``
  mark a percentage; ``percentage points`` (``pp``, ``points de
  pourcentage``, ``puntos porcentuales``) mark percentage points, a different
  unit. The value stays as written (7.6).
* Rates: a value followed by ``per 1,000`` (``per 100 live births``, ``pour
  1 000``...) records that denominator.
* Space-grouped thousands are not read across a compound word: ``7 100-bed``
  is the numbers 7 and 100, not 7100.
* Scale words multiply: thousand, million, billion, trillion, bn, mn, mln, tn
  (any case, with or without a space: ``3.2bn``, ``3.2 BN``); mille,
  million(s), milliard(s), billion(s) (10^12 in French); mil, millón,
  millones, mil millones (10^9), billón (10^12). One-letter suffixes multiply
  when written right after the number and in this case: ``k``/``K`` (10^3),
  ``M`` (10^6), ``B`` (10^9), so ``12.5k`` is 12,500 while ``12 m`` and
  ``5km`` are not scaled.
* Scientific notation: ``1.2e3``, ``3E-4`` (the mantissa's separator is always
  decimal); the exponent acts as the scale, so ``1.2e3`` shows one decimal
  of thousands.
* Not compared as values: years (a bare four-digit integer from 1800 to 2100,
  with no percent or scale), denominators of a rate (``per 1,000``, ``pour
  1 000``, ``por cada 1.000``); skipped altogether: fractions and dates
  (``1/2``, ``2023-05-01``), times, ordinals (``1st``, ``2e``), numbers inside
  identifiers (``U5``), versions (``1.2.3``) and numbers written as words.

Matching: a stated number *verifies* when it matches any expected value of
the case, either within the value's absolute ``tolerance`` or by rounding: the
expected value, expressed in the stated scale, rounds to the number shown at
its precision (7.63 shown as ``7.6``; 12,345,678 shown as ``12 million``).
Rounding needs at least two significant digits shown: ``8`` never verifies
7.63 and ``0 %`` never verifies 0.4 % without an explicit tolerance. Units
must agree: a percentage never matches a value whose unit is given and is not
a percentage, percentage points and per cent never match each other, and
when the expected unit names a denominator (``per 1,000``) the stated number
must name the same one. Extraction is linear in the length of the text.
Numbers that match no expected value are unverified.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

from assay.answers.models import ExpectedValue

#: Languages whose decimal separator is a comma (resolves ``1,234`` / ``1.234``).
DECIMAL_COMMA = frozenset(
    {
        "fr",
        "es",
        "de",
        "it",
        "pt",
        "nl",
        "ca",
        "gl",
        "eu",
        "ro",
        "pl",
        "cs",
        "sk",
        "sl",
        "hr",
        "sr",
        "bg",
        "ru",
        "uk",
        "tr",
        "da",
        "no",
        "nb",
        "nn",
        "sv",
        "fi",
        "et",
        "lv",
        "lt",
        "hu",
        "el",
        "id",
        "vi",
    }
)

_NUMBER = re.compile(
    r"""
    (?P<sign>[-−–+])?
    (?<![\w.,])
    (?P<num>
        \d{1,3}(?P<g>[,.'])\d{3}(?:(?P=g)\d{3})*(?:[.,]\d+)?
      | \d{1,3}(?P<s>[\u00a0\u202f\x20])\d{3}(?:(?P=s)\d{3})*(?:[.,]\d+)?(?![-\u2010][^\W\d_])
      | \d+(?:[.,]\d+)?
      | \.\d+
    )
    (?P<exp>[eE][-−+]?\d+)?
    (?!\d)(?![.,]\d)
    """,
    re.VERBOSE,
)
_GAP = r"[\s\u00a0\u202f]*"
_POINTS = (
    r"percentage\s+points?\b|pp\b|p\.p\.|points?\s+de\s+pourcentage\b"
    r"|puntos?\s+porcentuales\b"
)
_PERCENT = re.compile(
    _GAP + r"(?:(?P<points>" + _POINTS + r")|%|per\s?cent\b|pour\s?cent\b|por\s?ciento\b)",
    re.IGNORECASE,
)
#: ``per 1,000`` after a value: its denominator (the number itself is read separately).
_PER = re.compile(
    _GAP + r"(?:per|pour|por(?:\s+cada)?|out\s+of)" + _GAP + r"(?P<n>\d[\d,.'\u00a0\u202f ]*\d|\d)",
    re.IGNORECASE,
)
_SCALE_WORDS: tuple[tuple[str, float], ...] = (
    (r"mil\s+millones", 1e9),
    (r"thousands?", 1e3),
    (r"millions?", 1e6),
    (r"billions?", 1e9),
    (r"trillions?", 1e12),
    (r"milliards?", 1e9),
    (r"mille", 1e3),
    (r"millones|millón|millon", 1e6),
    (r"billones|billón|billon", 1e12),
    (r"mil", 1e3),
    (r"bn|mn|mln|tn", 0.0),  # abbreviations, resolved in _scale_of
)
#: One-letter suffixes, case-sensitive and written right after the number
#: (``12.5k``, ``$3M``, ``$2B``): ``m`` (metres) and ``b`` are not scales.
_LETTERS = "kKMB"
_SCALE = re.compile(
    r"(?:"
    + _GAP
    + r"(?P<word>"
    + "|".join(w for w, _ in _SCALE_WORDS)
    + r")|(?-i:(?P<letter>["
    + _LETTERS
    + r"])))\b",
    re.IGNORECASE,
)
_ABBREVIATIONS = {"bn": 1e9, "mn": 1e6, "mln": 1e6, "tn": 1e12, "k": 1e3, "m": 1e6, "b": 1e9}
_ORDINAL = re.compile(r"(?:st|nd|rd|th|er|re|e|ème|eme|º|ª)\b", re.IGNORECASE)
_SKIP = re.compile(r"\d+(?:/\d+)+|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}:\d{2}")
_DENOMINATOR = re.compile(r"(?:\bper|\bpour|\bpor(?:\s+cada)?|\bsur|\bout\s+of)\s*$", re.I)
_SIGN_AFTER = set(" \t\n\u00a0\u202f([{:=;\"'")

Role = Literal["value", "year", "denominator"]


@dataclass(frozen=True)
class ExtractedNumber:
    """A number found in text.

    ``shown`` is the number as written (before the scale word), ``decimals``
    its shown precision, ``value`` = ``shown`` x ``scale``. ``role`` is
    ``value`` (checked), ``year`` or ``denominator`` (not checked).
    ``percent`` marks per cent, ``points`` percentage points; ``per`` is the
    denominator of a rate (``38 per 1,000`` has ``per`` 1000).
    """

    text: str
    value: float
    shown: float
    decimals: int = 0
    scale: float = 1.0
    percent: bool = False
    role: Role = "value"
    start: int = 0
    end: int = 0
    points: bool = False
    per: float | None = None


@dataclass(frozen=True)
class NumberCheck:
    """One checked number and the index of the expected value it matched (or None)."""

    number: ExtractedNumber
    matched: int | None

    @property
    def verified(self) -> bool:
        """True when the number matched an expected value."""
        return self.matched is not None


def extract_numbers(text: str, language: str | None = None) -> list[ExtractedNumber]:
    """Every number stated in ``text``, in order, read with the rules of this module.

    ``language`` (ISO 639, e.g. ``en``, ``fr``, ``es``) resolves ``1,234`` and
    ``1.234``; unknown languages read them the English way. Linear in the
    length of ``text`` (every look-ahead matches in place, without copies).
    """
    lang = (language or "").split("-")[0].split("_")[0].lower()
    skipped = [m.span() for m in _SKIP.finditer(text)]
    starts = [a for a, _ in skipped]
    out: list[ExtractedNumber] = []
    for m in _NUMBER.finditer(text):
        start = m.start("num")
        at = bisect.bisect_right(starts, start) - 1
        if at >= 0 and start < skipped[at][1]:
            continue
        number = _read_one(text, m, lang)
        if number is not None:
            out.append(number)
    return out


def _read_one(text: str, m: re.Match[str], lang: str) -> ExtractedNumber | None:
    """The number matched by ``m``, or ``None`` when it is part of a word, an ordinal..."""
    start, end = m.span("num")
    negative = _negative(text, m)
    if negative is None:
        return None
    exponent = m.group("exp")
    group = m.group("g") or m.group("s")
    if exponent is None:
        resolved = _resolve(m.group("num"), group, lang)
    else:
        resolved = _mantissa(m.group("num"))
        end = m.end("exp")
    if resolved is None or _ORDINAL.match(text, end):
        return None
    shown, decimals = resolved
    percent_m = _PERCENT.match(text, end)
    scale_m = None if percent_m or exponent else _SCALE.match(text, end)
    scale = _scale_of(scale_m.group("word") or scale_m.group("letter"), lang) if scale_m else 1.0
    if exponent is not None:
        scale = float(Decimal(1).scaleb(int(exponent[1:].replace("−", "-"))))
    stop = (percent_m or scale_m).end() if (percent_m or scale_m) else end
    per_m = _PER.match(text, stop)
    per = _denominator(per_m.group("n"), lang) if per_m else None
    if negative:
        shown = -shown
    first = m.start("sign") if negative or m.group("sign") == "+" else start
    role: Role = "value"
    if _DENOMINATOR.search(text, max(0, first - 12), first):
        role = "denominator"
    elif (
        not negative
        and decimals == 0
        and group is None
        and scale == 1.0
        and not percent_m
        and len(m.group("num")) == 4
        and 1800 <= shown <= 2100
    ):
        role = "year"
    return ExtractedNumber(
        text=text[first:stop],
        value=float(Decimal(str(shown)) * Decimal(str(scale))),
        shown=shown,
        decimals=decimals,
        scale=scale,
        percent=percent_m is not None and not percent_m.group("points"),
        role=role,
        start=first,
        end=stop,
        points=bool(percent_m and percent_m.group("points")),
        per=per,
    )


def _denominator(token: str, lang: str) -> float | None:
    digits = token.strip()
    resolved = _resolve(digits, None, lang) if digits else None
    return None if resolved is None else resolved[0]


def check_numbers(
    numbers: Sequence[ExtractedNumber], expected: Sequence[ExpectedValue]
) -> list[NumberCheck]:
    """Match each stated value (years and denominators left out) to the expected values."""
    checks: list[NumberCheck] = []
    for number in numbers:
        if number.role != "value":
            continue
        matched = next(
            (i for i, e in enumerate(expected) if matches(number, e)),
            None,
        )
        checks.append(NumberCheck(number, matched))
    return checks


def matches(number: ExtractedNumber, expected: ExpectedValue) -> bool:
    """True when ``number`` states ``expected`` within tolerance or by rounding."""
    if not _same_unit(number, expected.unit):
        return False
    target = expected.value * _unit_scale(expected.unit)
    eps = 1e-9 * max(1.0, abs(target))
    if abs(number.value - target) <= expected.tolerance * _unit_scale(expected.unit) + eps:
        return True
    if _significant_digits(number) < 2:
        return False  # "8" for 7.63, "0 %" for 0.4 %: too coarse to count as rounding
    in_scale = target / number.scale
    half_step = 0.5 * 10.0 ** (-number.decimals)
    return abs(number.shown - in_scale) <= half_step + 1e-9 * max(1.0, abs(in_scale))


def _same_unit(number: ExtractedNumber, unit: str | None) -> bool:
    """Percent vs percentage points vs counts, and the denominator of a rate."""
    if not unit:
        return True
    text = unit.strip()
    points = bool(re.fullmatch(_POINTS, text, re.I)) or text.lower() in ("pp", "points")
    percent = not points and _is_percent_unit(text)
    if number.points or points:
        return number.points and points
    if number.percent and not percent:
        return False
    per_m = re.search(
        r"(?:per|pour|por(?:\s+cada)?|out\s+of)\s*(\d[\d,.'\u00a0\u202f ]*\d|\d)", text, re.I
    )
    if per_m is not None:
        wanted = _denominator(per_m.group(1), "")
        return number.per is not None and wanted is not None and number.per == wanted
    return True


def _significant_digits(number: ExtractedNumber) -> int:
    """Digits shown from the first non-zero one (``7.6``: 2, ``8``: 1, ``0``: 0, ``0.40``: 2)."""
    digits = f"{abs(number.shown):.{number.decimals}f}".replace(".", "").lstrip("0")
    return len(digits)


# ----------------------------------------------------------------- helpers
def _negative(text: str, m: re.Match[str]) -> bool | None:
    """True/False for the sign; ``None`` when the number belongs to a word."""
    sign = m.group("sign")
    if sign is None:
        start = m.start("num")
        before = text[start - 1] if start else ""
        return None if before.isalpha() or before == "_" else False
    at = m.start("sign")
    before = text[at - 1] if at else " "
    if before.isalpha() or before == "_":
        return None  # under-5, COVID-19
    if sign == "+":
        return False
    if before not in _SIGN_AFTER:
        return False  # 5-7: a range
    previous = text[:at].rstrip()
    # an en dash after a number joins a range (2019 – 2023); otherwise it is a minus
    return not (sign == "–" and previous and (previous[-1].isdigit() or previous[-1] == "%"))


def _resolve(token: str, group: str | None, lang: str) -> tuple[float, int] | None:
    """Value and shown decimals of a number token; ``None`` when unreadable."""
    spaced = any(c in token for c in " '\u00a0\u202f")
    digits = "".join(c for c in token if c not in " '\u00a0\u202f")
    if digits.startswith("."):
        return _to_float(digits, len(digits) - 1)
    commas, dots = digits.count(","), digits.count(".")
    if commas and dots:
        decimal_sep = "," if digits.rfind(",") > digits.rfind(".") else "."
        grouping = "." if decimal_sep == "," else ","
        head, _, tail = digits.rpartition(decimal_sep)
        if grouping not in head or decimal_sep in head:
            return None
        return _to_float(head.replace(grouping, "") + "." + tail, len(tail))
    if not commas and not dots:
        return _to_float(digits, 0)
    sep = "," if commas else "."
    parts = digits.split(sep)
    if len(parts) > 2:
        if any(len(p) != 3 for p in parts[1:]):
            return None
        return _to_float("".join(parts), 0)
    head, tail = parts
    decimal = (
        len(tail) != 3
        or head == "0"
        or spaced
        or (sep == "," and lang in DECIMAL_COMMA)
        or (sep == "." and lang not in DECIMAL_COMMA)
    )
    if decimal:
        return _to_float(head + "." + tail, len(tail))
    return _to_float(head + tail, 0)


def _mantissa(token: str) -> tuple[float, int] | None:
    """Value and decimals of the mantissa of ``1.2e3`` / ``1,2e3`` (always decimal)."""
    if not re.fullmatch(r"\d+(?:[.,]\d+)?|\.\d+", token):
        return None
    _, _, tail = token.replace(",", ".").partition(".")
    return _to_float(token.replace(",", "."), len(tail))


def _to_float(text: str, decimals: int) -> tuple[float, int] | None:
    try:
        return float(Decimal(text)), decimals
    except InvalidOperation:
        return None


def _scale_of(word: str, lang: str) -> float:
    key = re.sub(r"\s+", " ", word.lower())
    if key in _ABBREVIATIONS:
        return _ABBREVIATIONS[key]
    if key.startswith("billion") and lang == "fr":
        return 1e12
    for pattern, scale in _SCALE_WORDS:
        if re.fullmatch(pattern, key):
            return scale
    return 1.0


def _unit_scale(unit: str | None) -> float:
    """Scale named by an expected value's unit (``million``, ``bn``...), else 1."""
    if not unit:
        return 1.0
    m = _SCALE.fullmatch(unit.strip())
    return _scale_of(m.group("word") or m.group("letter"), "") if m else 1.0


def _is_percent_unit(unit: str) -> bool:
    return bool(_PERCENT.fullmatch(unit.strip())) or unit.strip().lower() in ("pct", "percent")
