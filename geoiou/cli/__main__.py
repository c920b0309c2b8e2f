"""``python -m geoiou.cli``: the same as the ``geoiou`` command."""

import sys

from geoiou.cli import main

sys.exit(main())
