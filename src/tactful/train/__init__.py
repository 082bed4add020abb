"""Training of the builtin multi-task model (needs the ``train`` extra).

``pip install torch==2.13.0 && pip install -e '.[train]'`` (torch first, so
that nothing pulls a CUDA build). Nothing here runs at inference time.
"""

from ._mixture import Example, build_mixture

__all__ = ["Example", "build_mixture"]
