"""Revoke: resolve leaked findings to token ids, revoke them concurrently, report per id;
log out leaked session tokens.

    inputs    reports, baselines and ids as the user gives them
    scanned   ``--scan``: an in-process scan split into PAT findings and session targets
    plan      findings -> token ids through the inventory; unresolved findings; statuses
    run       concurrent DELETEs under the client's rate gate
    sessions  leaked session tokens logged out with themselves (memberships, then logout)
    output    text / JSON results and the exit status
    flow      the whole run as a function (``revoke_leaked``) returning an ``Outcome``
"""

from __future__ import annotations

from hygiene.revoke.flow import Interaction, Outcome, RevokeOptions, revoke_leaked
from hygiene.revoke.plan import Result, Target, make_plan
from hygiene.revoke.run import revoke_all
from hygiene.revoke.sessions import SessionTarget, log_out_all

__all__ = [
    "Interaction",
    "Outcome",
    "Result",
    "RevokeOptions",
    "SessionTarget",
    "Target",
    "log_out_all",
    "make_plan",
    "revoke_all",
    "revoke_leaked",
]
