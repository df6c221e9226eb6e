"""Revoke a plan's token ids concurrently; the client's rate gate keeps the pace legal."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed

from hygiene.api.client import ControlPlaneClient
from hygiene.errors import ApiError
from hygiene.revoke.plan import FAILED, NOT_FOUND, REVOKED, Result, Target

WORKERS = 8


def revoke_one(client: ControlPlaneClient, target: Target) -> Result:
    """DELETE one PAT: ``revoked`` (204), ``not_found`` (404), ``failed`` (anything else).

    :class:`~hygiene.errors.AuthFailed` is not a per-id failure: it stops the run.
    """
    try:
        status = client.revoke_pat(target.token_id)
    except ApiError as exc:
        return Result(target.token_id, target.fingerprint, FAILED, exc.status, exc.code)
    return Result(
        target.token_id, target.fingerprint, REVOKED if status == 204 else NOT_FOUND, status
    )


def revoke_all(
    client: ControlPlaneClient,
    targets: Sequence[Target],
    *,
    workers: int = WORKERS,
    on_done: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Revoke every target with ``workers`` threads; results in the targets' order.

    ``on_done`` sees each result as it arrives, in this thread. When a call raises (AUTH_FAILED),
    the ids not started are cancelled, those already sent still report to ``on_done`` (their
    revocation happened and must be recorded), then the first error is raised.
    """
    if not targets:
        return []
    client.use_org()  # log in and pick the organization once, before the threads start
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(targets)))) as pool:
        futures: list[Future[Result]] = [pool.submit(revoke_one, client, t) for t in targets]
        first_error: BaseException | None = None
        for future in as_completed(futures):
            if future.cancelled():
                continue
            error = future.exception()
            if error is None:
                if on_done is not None:
                    on_done(future.result())
            elif first_error is None:
                first_error = error
                for other in futures:
                    other.cancel()
        if first_error is not None:
            raise first_error
        return [f.result() for f in futures]


__all__ = ["WORKERS", "revoke_all", "revoke_one"]
