"""lsfemu: an emulator of IBM Spectrum LSF's batch system on one machine.

Kept empty of imports on purpose: every command imports this package, and the
commands must start fast (see lsfemu.client).
"""

__version__ = "0.1.0"
