"""Serve every fake provider on one port until interrupted: ``python tests/fakes --port 8001``.

Paths: ``/v1/moderations`` (openai), ``/v1alpha1/comments:analyze`` (perspective),
``/v1/documents:moderateText`` and ``/v2/...`` (google), ``/v1/chat/completions`` and
``/v1/completions`` (guards and chat, by model name), ``/v1/messages`` (anthropic).
With ``--key K`` every request must carry K in the provider's header.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakes import FakeServer


def main() -> None:
    parser = argparse.ArgumentParser(prog="python tests/fakes")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key", default=None)
    parser.add_argument("--seconds", type=float, default=3600.0, help="stop after this long")
    args = parser.parse_args()
    server = FakeServer(key=args.key, port=args.port).start()
    print(server.url, flush=True)
    try:
        time.sleep(args.seconds)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
