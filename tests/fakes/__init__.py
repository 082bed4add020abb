"""Local fake servers speaking the remote moderators' wire formats, with scripted faults.

Start one in a test with ``with FakeServer() as server: ...`` (127.0.0.1, a free
port), or by hand with ``python tests/fakes --port 8001`` to point ``tactful``
at it (``-O base_url=http://127.0.0.1:8001/v1``).
"""

from .providers import toxicity
from .server import FakeServer, Fault

__all__ = ["FakeServer", "Fault", "toxicity"]
