"""The commands as a library: one module per family of operations.

An operation takes the engine (`engine.cluster.Cluster`), the caller
(`permissions.Caller`) and a typed request, and returns a typed result or
raises an `lsfemu.errors.LsfError`; it never sees argv and never makes text
(`lsfemu/cli/` parses argv into requests and renders results with
`lsfemu/render/`). Who may do what is declared once, in `permissions.RULES`.

Modules: `permissions` (the table), `select` (which jobs a command names),
`control` (bkill, bstop, bresume, bswitch, bmig, brequeue), `force`
(brun), `peek` (bpeek), `depinfo` (bjdepinfo), `bmod` (bmod), `modify`
(btop, bbot), `submit` (bsub), `query` (bjobs' selection and order),
`admin` (the configuration check, badmin's queue and host control, host
failures), `clock` (`lsfemu clock set|advance`), `history` (bhist's selection
and time windows), `explain` (`lsfemu explain`),
`info` (the views of bqueues, bparams, bhosts, busers).
"""
