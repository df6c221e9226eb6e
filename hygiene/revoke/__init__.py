"""Revoke: resolve leaked findings to token ids, revoke them concurrently, report per id.

    sources   reports, baselines and ids as the user gives them
    plan      findings -> token ids through the inventory; unresolved findings
    run       concurrent DELETEs under the client's rate gate
    output    text / JSON results and the exit status
    flow      the whole command as a function (``revoke_leaked``)
"""

from __future__ import annotations

from hygiene.revoke.flow import Console, RevokeOptions, revoke_leaked
from hygiene.revoke.plan import Result, Target, make_plan
from hygiene.revoke.run import revoke_all

__all__ = ["Console", "Result", "RevokeOptions", "Target", "make_plan", "revoke_all",
           "revoke_leaked"]  # fmt: skip
