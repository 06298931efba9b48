"""Reading a GGUF file's header: the check that a path holds a GGUF model, and its metadata.

Pure Python, no llama.cpp load: a job form or a command can refuse a wrong file in
milliseconds, before any debate starts, and a malformed file never reaches native code in the
web process. The format is llama.cpp's GGUF v2/v3 (https://github.com/ggml-org/ggml/blob/
master/docs/gguf.md): the magic ``GGUF``, a version, the tensor and key/value counts, then the
key/value pairs (little-endian). Arrays (the tokenizer's vocabulary, merges) are skipped.
Errors say what is wrong and never quote the file (a path may name any file on the server).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

MAGIC = b"GGUF"
CHAT_TEMPLATE_KEY = "tokenizer.chat_template"

# Value type id -> struct format of the scalar types (GGUF spec, gguf_metadata_value_type).
_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9
# Larger counts or lengths can only come from a corrupt header; refusing them keeps a bad
# file from making us allocate or loop for long.
_MAX_STRING = 16 * 1024 * 1024
_MAX_KEYS = 1_000_000


class GGUFError(ValueError):
    """The file is not a readable GGUF model; the message says what is wrong."""


@dataclass(frozen=True)
class GGUFInfo:
    """What the debates need from a GGUF header.

    ``architecture`` is ``general.architecture`` (e.g. ``llama``, ``qwen2``), ``name``
    ``general.name`` (``""`` if absent), ``context_length`` the training context in tokens
    (``<architecture>.context_length``; None if absent), ``chat_template`` the Jinja chat
    template (``tokenizer.chat_template``; None if absent).
    """

    architecture: str
    name: str
    context_length: int | None
    chat_template: str | None


def file_check(path: Path) -> None:
    """Raise GGUFError unless ``path`` is an existing regular file starting with ``GGUF``.

    Messages name the path and the fault, never a byte of the file (it may be any file on
    the server): ``/m/x.gguf: no such file``, ``... : not a regular file``, ``... : not a GGUF
    file (it does not start with the GGUF magic bytes)``, ``... : cannot be read (...)``.
    """
    if not path.exists():
        raise GGUFError(f"{path}: no such file")
    if not path.is_file():
        raise GGUFError(f"{path}: not a regular file")
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        raise GGUFError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if head != MAGIC:
        raise GGUFError(f"{path}: not a GGUF file (it does not start with the GGUF magic bytes)")


def _read(handle: BinaryIO, n: int, path: Path) -> bytes:
    data = handle.read(n)
    if len(data) != n:
        raise GGUFError(f"{path}: truncated GGUF header")
    return data


def _unpack(handle: BinaryIO, fmt: str, path: Path) -> Any:
    return struct.unpack(fmt, _read(handle, struct.calcsize(fmt), path))[0]


def _string(handle: BinaryIO, path: Path, *, keep: bool = True) -> str | None:
    length = _unpack(handle, "<Q", path)
    if length > _MAX_STRING:
        raise GGUFError(f"{path}: corrupt GGUF header (a string longer than 16 MiB)")
    if not keep:
        handle.seek(length, 1)
        return None
    return _read(handle, length, path).decode("utf-8", errors="replace")


def _skip_array(handle: BinaryIO, path: Path, size: int) -> None:
    kind = _unpack(handle, "<I", path)
    count = _unpack(handle, "<Q", path)
    if count > size:
        raise GGUFError(f"{path}: corrupt GGUF header (an array longer than the file)")
    if kind in _SCALARS:
        handle.seek(count * struct.calcsize(_SCALARS[kind]), 1)
    elif kind == _STRING:
        for _ in range(count):
            _string(handle, path, keep=False)
    elif kind == _ARRAY:
        for _ in range(count):
            _skip_array(handle, path, size)
    else:
        raise GGUFError(f"{path}: corrupt GGUF header (an unknown array value type)")


def read_metadata(path: Path) -> dict[str, Any]:
    """The scalar and string key/values of the GGUF header of ``path`` (arrays left out).

    E.g. ``{"general.architecture": "llama", "llama.context_length": 8192, ...}``. Reads only
    the header (a few MB for a tokenizer with 150k tokens). Raises GGUFError (see
    :func:`file_check`), also for a GGUF version other than 2 or 3 or a corrupt header.
    """
    file_check(path)
    size = path.stat().st_size
    out: dict[str, Any] = {}
    with path.open("rb", buffering=1024 * 1024) as handle:
        handle.seek(4)
        version = _unpack(handle, "<I", path)
        if version not in (2, 3):
            raise GGUFError(f"{path}: a GGUF version other than 2 or 3 (not supported)")
        _unpack(handle, "<Q", path)  # tensor count
        n_keys = _unpack(handle, "<Q", path)
        if n_keys > _MAX_KEYS:
            raise GGUFError(f"{path}: corrupt GGUF header (more than {_MAX_KEYS:,} keys)")
        for _ in range(n_keys):
            key = _string(handle, path) or ""
            kind = _unpack(handle, "<I", path)
            if kind in _SCALARS:
                out[key] = _unpack(handle, _SCALARS[kind], path)
            elif kind == _STRING:
                out[key] = _string(handle, path)
            elif kind == _ARRAY:
                _skip_array(handle, path, size)
            else:
                raise GGUFError(f"{path}: corrupt GGUF header (an unknown value type)")
    return out


def model_info(path: Path) -> GGUFInfo:
    """The architecture, name, training context and chat template of the GGUF at ``path``.

    Raises GGUFError (see :func:`read_metadata`), also when ``general.architecture`` is
    missing.
    """
    meta = read_metadata(path)
    arch = meta.get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise GGUFError(f"{path}: no general.architecture in the GGUF metadata")
    context = meta.get(f"{arch}.context_length")
    template = meta.get(CHAT_TEMPLATE_KEY)
    return GGUFInfo(
        architecture=arch,
        name=str(meta.get("general.name") or ""),
        context_length=int(context) if isinstance(context, int) and context > 0 else None,
        chat_template=template if isinstance(template, str) and template.strip() else None,
    )
