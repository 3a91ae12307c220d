"""``python -m ccsim``: the same as the ``ccsim`` command."""

import sys

from .cli import main

sys.exit(main())
