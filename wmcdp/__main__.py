"""``python -m wmcdp``: the ``wmcdp`` command (:func:`wmcdp.cli.main`)."""

import sys

from .cli import main

sys.exit(main())
