"""lsid banner (reference section 7.3) and the ``-V`` version lines.

The first line carries the version (dask takes the first ``\\d+(\\.\\d+)+``
of the whole output); the build date has a zero-padded day; an empty line
precedes ``My cluster name is``.
"""

from __future__ import annotations

VERSION = "10.1.0.13"
BUILD_DATE = "Jan 04 2023"


def version_lines(version: str = VERSION, build_date: str = BUILD_DATE) -> str:
    """The three copyright lines (also what ``cmd -V`` prints on stderr)."""
    return (
        f"IBM Spectrum LSF Standard {version}, {build_date}\n"
        "Copyright International Business Machines Corp. 1992, 2016.\n"
        "US Government Users Restricted Rights - Use, duplication or disclosure "
        "restricted by GSA ADP Schedule Contract with IBM Corp.\n"
    )


def banner(cluster_name: str, master_host: str, version: str = VERSION, build_date: str = BUILD_DATE) -> str:
    return (
        version_lines(version, build_date)
        + "\n"
        + f"My cluster name is {cluster_name}\n"
        + f"My master name is {master_host}\n"
    )
