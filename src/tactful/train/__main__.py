"""``python -m tactful.train``: the same as ``tactful train``."""

from ._run import main

main()
