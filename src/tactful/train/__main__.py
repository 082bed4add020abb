"""``python -m tactful.train``: the ``tactful train`` command itself, not a second one.

It runs the ``tactful`` app with ``train`` in front of the arguments, so that the
options, the help and the one-line errors are those of ``tactful train``.
"""

import sys

from ..cli import app

app(args=["train", *sys.argv[1:]], prog_name="tactful")
