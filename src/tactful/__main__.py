"""``python -m tactful``: the same command line as the ``tactful`` script."""

from .cli import main

if __name__ == "__main__":
    main()
