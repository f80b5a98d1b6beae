"""`python -m lsfemu.daemon`: run the daemon in the foreground (or, with
LSFEMU_FORKSERVER, have a test suite's daemon template fork it: lsfemu.daemon.forkserver)."""

import sys

from lsfemu.daemon.forkserver import delegate

code = delegate()
if code is None:
    # here, not at the top: a start the template serves does not import the daemon
    from lsfemu.daemon.server import main

    code = main()
sys.exit(code)
