"""One catch-all view: the careless app of the battery."""

from __future__ import annotations

import json

import common
from django.http import HttpRequest, HttpResponse
from django.urls import re_path


def everything(request: HttpRequest, path: str) -> HttpResponse:
    headers = dict(request.headers)
    status, payload = common.handle(
        request.method or "GET",
        "/" + path,
        request.META.get("QUERY_STRING", ""),
        headers,
        request.body,
    )
    return HttpResponse(json.dumps(payload), status=status, content_type="application/json")


urlpatterns = [re_path(r"^(?P<path>.*)$", everything)]
