"""`python -m lsfemu.daemon`: run the daemon in the foreground."""

import sys

from lsfemu.daemon.server import main

sys.exit(main())
