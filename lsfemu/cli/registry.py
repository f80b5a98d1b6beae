"""The table of commands the daemon serves: command name -> function(Ctx) -> Result."""

from __future__ import annotations

from lsfemu.cli import (admin, bapp, bhist, bjobs, blimits, bsub, control, groups, info, jobgroups, jobinfo, lstools,
                        modify)

COMMANDS = {
    "bsub": bsub.run,
    "bjobs": bjobs.run,
    "bhist": bhist.run,
    "bkill": control.run_bkill,
    "bstop": control.run_bstop,
    "bresume": control.run_bresume,
    "bswitch": control.run_bswitch,
    "bmig": control.run_bmig,
    "brun": control.run_brun,
    "bpeek": jobinfo.run_bpeek,
    "bjdepinfo": jobinfo.run_bjdepinfo,
    "bmod": modify.run_bmod,
    "btop": modify.run_btop,
    "bbot": modify.run_bbot,
    "brequeue": modify.run_brequeue,
    "bqueues": info.run_bqueues,
    "bparams": info.run_bparams,
    "bhosts": info.run_bhosts,
    "busers": info.run_busers,
    "bugroup": groups.run_bugroup,
    "bhpart": groups.run_bhpart,
    "lsid": info.run_lsid,
    "lshosts": lstools.run_lshosts,
    "lsload": lstools.run_lsload,
    "lsinfo": lstools.run_lsinfo,
    "lsclusters": lstools.run_lsclusters,
    "lsadmin": lstools.lsadmin,
    "bgadd": jobgroups.run_bgadd,
    "bgmod": jobgroups.run_bgmod,
    "bgdel": jobgroups.run_bgdel,
    "bjgroup": jobgroups.run_bjgroup,
    "bapp": bapp.run_bapp,
    "blimits": blimits.run_blimits,
    "badmin": admin.badmin,
    "lsfemu": admin.lsfemu_remote,
}
