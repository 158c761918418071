"""Other simulators run on the same scenario, for cross-validation (``transim compare ns3``).

ns-3 comes from the ``peers`` extra (``pip install 'transim[peers]'``: the PyPI ``ns3``
wheel with its compiled libraries and headers) or Debian's ``libns3-dev``; a C++ compiler
(``g++``) builds transim's one driver program against it once and caches it.
"""

from .ns3 import Ns3Install, Ns3Unavailable, find_ns3, run_ns3
from .ns3_translate import Translation, translate

__all__ = ["Ns3Install", "Ns3Unavailable", "Translation", "find_ns3", "run_ns3", "translate"]
