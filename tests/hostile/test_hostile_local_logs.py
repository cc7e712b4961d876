"""Behaviour logs decompressed as streams: bombs of zeros and of newlines, a byte limit,
a bad CRC and an encrypted member all end in exit 2 naming the member, in bounded memory."""

from __future__ import annotations

import gzip
import json
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest

from assay.behavior.read import MAX_LINE_BYTES, read_ubi
from assay.cli.app import main
from assay.core.errors import InputError

MB = 1 << 20
EVENT = {
    "action_name": "click",
    "query_id": "q1",
    "event_attributes": {"object": {"object_id": "d1"}, "position": {"ordinal": 1}},
}
QUERY = {"query_id": "q1", "user_query": "shoes", "query_response_hit_ids": ["d1", "d2"]}


def _zip_member(path: Path, name: str, block: bytes, count: int) -> Path:
    """A deflated member of ``count`` copies of ``block``, written as a stream."""
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive,
        archive.open(name, "w", force_zip64=True) as member,
    ):
        for _ in range(count):
            member.write(block)
    return path


def _cli(*argv: str, capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exc:
        main(["judge", "clicks", "--positions", "1", *argv])
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out + out.err


def _refused_peak(path: Path) -> tuple[InputError, int]:
    """The error reading ``path`` gives and the peak of Python allocations meanwhile."""
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as exc:
            read_ubi(path)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return exc.value, peak


def test_a_bomb_of_zeros_stops_at_the_line_limit(tmp_path: Path, capsys) -> None:
    bomb = _zip_member(tmp_path / "zeros.zip", "ubi_events.jsonl", bytes(MB), 64)
    assert bomb.stat().st_size < 2 * MB  # 64 MiB inside
    error, peak = _refused_peak(bomb)
    problem = str(error.problems[0])
    assert "zeros.zip:ubi_events.jsonl" in problem and "longer than" in problem
    assert peak < MAX_LINE_BYTES * 4  # what was read before the limit, not the 64 MiB member
    code, text = _cli(str(bomb), capsys=capsys)
    assert code == 2 and "ubi_events.jsonl" in text and "unexpected" not in text, text


def test_a_bomb_of_newlines_stops_at_once(tmp_path: Path, capsys) -> None:
    bomb = _zip_member(tmp_path / "lines.zip", "ubi_events.jsonl", b"\n" * MB, 64)
    error, peak = _refused_peak(bomb)
    assert "blank lines" in str(error.problems[0])
    assert peak < 8 * MB
    code, text = _cli(str(bomb), capsys=capsys)
    assert code == 2 and "lines.zip:ubi_events.jsonl" in text and "blank lines" in text, text


def test_gzip_logs_are_streamed_too(tmp_path: Path) -> None:
    path = tmp_path / "ubi_events.jsonl.gz"
    with gzip.open(path, "wb") as fh:
        for _ in range(64):
            fh.write(bytes(MB))
    with pytest.raises(InputError, match="longer than"):
        read_ubi(path)


def test_the_byte_limit_counts_uncompressed_bytes(tmp_path: Path, capsys) -> None:
    line = (json.dumps(EVENT) + "\n").encode()
    bomb = _zip_member(tmp_path / "many.zip", "ubi_events.jsonl", line * 10_000, 40)
    code, text = _cli(str(bomb), "--max-bytes", "1000000", capsys=capsys)
    assert code == 2 and "exceeds the limit of 1000000 bytes" in text, text
    code, text = _cli(str(bomb), "--max-bytes", "0", capsys=capsys)
    assert code == 2 and "--max-bytes" in text, text


def _stored_zip(path: Path) -> bytes:
    body = (json.dumps(QUERY) + "\n" + json.dumps(EVENT) + "\n").encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("ubi_events.jsonl", body)
    return body


def test_a_bad_crc_names_the_member(tmp_path: Path, capsys) -> None:
    path = tmp_path / "crc.zip"
    body = _stored_zip(path)
    data = bytearray(path.read_bytes())
    at = data.index(body)
    data[at + 5] ^= 0x01  # one flipped bit in the stored bytes: the CRC no longer matches
    path.write_bytes(bytes(data))
    code, text = _cli(str(path), capsys=capsys)
    assert code == 2, text
    assert "crc.zip:ubi_events.jsonl" in text and "CRC" in text and "unexpected" not in text


def test_an_encrypted_member_names_the_member(tmp_path: Path, capsys) -> None:
    path = tmp_path / "locked.zip"
    _stored_zip(path)
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # local, central
        at = data.index(signature)
        data[at + offset] |= 0x01  # general purpose bit 0: encrypted
    path.write_bytes(bytes(data))
    assert zipfile.ZipFile(path).infolist()[0].flag_bits & 0x1  # what zipfile itself sees
    code, text = _cli(str(path), capsys=capsys)
    assert code == 2 and "locked.zip:ubi_events.jsonl" in text and "encrypted" in text, text


def test_a_corrupt_deflate_stream_names_the_member(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.zip"
    line = (json.dumps(EVENT) + "\n").encode() * 200
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("ubi_events.jsonl", line)
    data = bytearray(path.read_bytes())
    start = data.index(b"ubi_events.jsonl") + len("ubi_events.jsonl")
    for i in range(start + 2, start + 12):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))
    code, text = _cli(str(path), capsys=capsys)
    assert code == 2 and "bad.zip:ubi_events.jsonl" in text and "unexpected" not in text, text
    assert zlib  # the stream is deflate; zlib reports the corruption


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--thresholds", "nan,nan,nan"], "--thresholds"),
        (["--thresholds", "0.1,inf,0.9"], "--thresholds"),
        (["--model", "dbn", "--gamma", "2"], "--gamma"),
        (["--model", "dbn", "--gamma", "1e300"], "--gamma"),
        (["--model", "dbn", "--gamma", "nan"], "--gamma"),
        (["--model", "coec", "--cap", "inf"], "--cap"),
        (["--weight", "add_to_cart=nan"], "--weight"),
    ],
)
def test_numeric_options_are_finite_and_in_range(
    tmp_path: Path, capsys, args: list[str], flag: str
) -> None:
    path = tmp_path / "ubi_events.jsonl"
    path.write_text(json.dumps(QUERY) + "\n" + json.dumps(EVENT) + "\n")
    code, text = _cli(str(path), *args, capsys=capsys)
    assert code == 2, text
    assert flag in text and "Warning" not in text and "unexpected" not in text, text
