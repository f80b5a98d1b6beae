"""The text of a job's history row data (Cluster.log): json.dumps's output,
from json's C encoder made once -- json.dumps makes an encoder per call, and a
simulated job logs two history rows (issue 23, part 4: the virtual clock).
tests/unit/test_history_json.py holds it equal to json.dumps, errors too."""

from __future__ import annotations

import json
from json.encoder import c_make_encoder, encode_basestring_ascii

# (c_make_encoder is None where json's C speedups are missing: json.dumps then)
_ENCODE = c_make_encoder(None, json.JSONEncoder().default, encode_basestring_ascii, None, ": ", ", ", False,
                         False, True) if c_make_encoder is not None else None


def to_json(data: dict) -> str:
    """json.dumps(data)."""
    return "".join(_ENCODE(data, 0)) if _ENCODE is not None else json.dumps(data)
