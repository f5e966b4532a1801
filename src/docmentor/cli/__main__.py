from __future__ import annotations

import sys

from docmentor.cli import main

sys.exit(main())
