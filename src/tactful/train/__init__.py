"""Training of the builtin multi-task model (needs the ``train`` extra).

``pip install torch==2.13.0 && pip install -e '.[train]'`` (torch first, so
that nothing pulls a CUDA build). Nothing here runs at inference time.
"""

from ._encoders import (
    ENCODER_CACHE_ENV,
    ENCODERS,
    MPNET_PARTS,
    MPNET_ZIP_SHA256,
    assemble_encoder,
    encoder_cache_dir,
    encoder_dir,
)
from ._mixture import Example, build_mixture

__all__ = [
    "ENCODERS",
    "ENCODER_CACHE_ENV",
    "MPNET_PARTS",
    "MPNET_ZIP_SHA256",
    "Example",
    "assemble_encoder",
    "build_mixture",
    "encoder_cache_dir",
    "encoder_dir",
]
